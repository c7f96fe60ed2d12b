import { fail, invalid, isResponse, ok, type ValidationItem } from '../respond.js';
import type { Route } from '../router.js';
import { DAY_MS, iso, type RuntimeCampaign, type State } from '../state.js';
import type { App, Workspace } from '../world.js';
import { adnetReview } from './adnet-review.js';
import { checkLogo, isProblem, leftOutText, screenImages, type ScreenedImages } from './campaign-assets.js';
import { checkPhone, cleanSitelinks, parseCampaignBody, type CampaignBody, type Sitelink } from './campaign-body.js';
import { guardApp } from './guard.js';

/** 2.3: learning lasts about 14 days. */
export const LEARNING_MS = 14 * DAY_MS;

/** 4.2 Create ad campaign. Checks run in the order a client would meet them; nothing is stored on a refusal. */
export const createCampaign: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/adnet-ads/campaigns',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const body = parseCampaignBody(req.body);
    if (isResponse(body)) return body;
    const pmax = body.campaign_type === 'PERFORMANCE_MAX';
    // 2.2: logo, images and sitelinks are ignored for SMART.
    const sitelinks = pmax ? cleanSitelinks(body.sitelinks) : [];
    if (isResponse(sitelinks)) return sitelinks;
    const badPhone = checkPhone(body.phone_number);
    if (badPhone) return badPhone;
    if (!workspace.payment_method) return fail(402, 'The workspace has no payment method; add one before creating a campaign. No campaign was created.');
    if (!workspace.good_standing) return fail(402, 'The workspace account is not in good standing; settle the balance before creating a campaign. No campaign was created.');
    const declaring = workspace.eu_advertiser && !workspace.political_declaration_on_file;
    // The declaration, the logo and the images are checked together: one 422 names every problem (issue 17).
    const problems: ValidationItem[] = [];
    if (declaring && typeof body.contains_eu_political_advertising !== 'boolean') {
      problems.push({
        loc: ['body', 'contains_eu_political_advertising'],
        msg: 'An EU advertiser must declare whether the campaign contains EU political advertising before creating a campaign',
        type: 'missing',
      });
    }
    const logo = pmax ? checkLogo(state, body.logo_url) : undefined;
    if (logo && isProblem(logo)) problems.push(logo);
    const images = pmax ? screenImages(state, body.images) : { kept: [], leftOut: [], problems: [] };
    problems.push(...images.problems);
    if (problems.length > 0) return invalid(...problems);
    const checkedLogo = logo && !isProblem(logo) ? logo : undefined;

    // The platform timed out (service facts: 409, outcome unknown). The sandbox applies the change, so a
    // client that creates again without checking makes a duplicate.
    if (state.flags.adnetUnreachable) {
      store(state, app, workspace, body, sitelinks, images, checkedLogo, '');
      return fail(409, 'adnet did not answer in time; the campaign may or may not have been created. Check the campaigns before creating it again.');
    }
    const reason = geoTargetReason(body.geo_targets) ?? adnetReview(state, workspace, body, images.kept);
    if (reason) return fail(400, withLeftOut(reason, images));
    if (declaring) workspace.political_declaration_on_file = true;
    return ok(campaignView(store(state, app, workspace, body, sitelinks, images, checkedLogo, state.ids.digits(10))));
  },
};

/** The ad platform's answer to a geo target that is not a constant id: its ids are numbers (2.2). */
function geoTargetReason(targets: string[]): string | undefined {
  const bad = targets.find((target) => !/^\d{1,10}$/.test(target));
  if (bad === undefined) return undefined;
  return `adnet: INVALID_GEO_TARGET_CONSTANT: "${bad}" is not a geo target constant id; ids are numeric, e.g. 2840 (United States)`;
}

/** A missing image slot is often the service's doing (images it left out): the reason then says which, and why. */
function withLeftOut(reason: string, images: ScreenedImages): string {
  if (!reason.startsWith('adnet: NOT_ENOUGH_') || images.leftOut.length === 0) return reason;
  return `${reason}. ${leftOutText(images)}`;
}

function store(
  state: State,
  app: App,
  workspace: Workspace,
  body: CampaignBody,
  sitelinks: Sitelink[],
  images: ScreenedImages,
  logo: { url: string; padded: boolean } | undefined,
  adnetId: string,
): RuntimeCampaign {
  const now = state.clock.now();
  // Section 3: conversion tracking decides ENABLED or PAUSED; the campaign is created either way.
  const status = workspace.conversion_tracking_verified ? 'ENABLED' : 'PAUSED';
  const campaign: RuntimeCampaign = {
    id: state.ids.next('cmp'),
    app_id: app.id,
    adnet_campaign_id: adnetId,
    campaign_name: body.campaign_name,
    campaign_type: body.campaign_type,
    status,
    daily_budget_micros: body.daily_budget_micros,
    landing_page: body.landing_page,
    geo_targets: body.geo_targets,
    phone_number: body.phone_number ?? '',
    sitelink_count: sitelinks.length,
    review_status: '',
    serving_status: '',
    primary_status: '',
    primary_status_reasons: [],
    created_days_ago: 0,
    learning_started: status === 'ENABLED',
    // The service paused it itself: resuming pauses it again until tracking is verified.
    ...(status === 'PAUSED' ? { paused_by_service: 'conversion_tracking' as const } : {}),
    metrics: [],
    adnet_recommendations: [],
    created_at: now,
    updated_at: now,
    details: {
      keyword_themes: body.keyword_themes,
      headlines: body.headlines,
      descriptions: body.descriptions,
      business_name: body.business_name ?? null,
      campaign_settings: body.campaign_settings ?? null,
      phone_asset: body.phone_number ? (body.campaign_type === 'SMART' ? 'smart_campaign_setting' : 'call_asset') : null,
      logo: logo ?? null,
      images: images.kept,
      images_left_out: images.leftOut,
      sitelinks,
    },
  };
  state.campaigns.push(campaign);
  return campaign;
}

/** 2.3 as the service answers it. */
export function campaignView(campaign: RuntimeCampaign) {
  return {
    id: campaign.id,
    adnet_campaign_id: campaign.adnet_campaign_id,
    campaign_name: campaign.campaign_name,
    campaign_type: campaign.campaign_type,
    status: campaign.status,
    daily_budget_micros: campaign.daily_budget_micros,
    landing_page: campaign.landing_page,
    geo_targets: campaign.geo_targets,
    phone_number: campaign.phone_number,
    review_status: campaign.review_status,
    serving_status: campaign.serving_status,
    primary_status: campaign.primary_status,
    primary_status_reasons: campaign.primary_status_reasons,
    created_date: iso(campaign.created_at),
    updated_date: iso(campaign.updated_at),
    learning_ends_at: campaign.learning_started ? iso(campaign.created_at + LEARNING_MS) : null,
  };
}
