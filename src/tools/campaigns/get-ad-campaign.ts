import { z } from 'zod';
import type { Campaign } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, id } from '../fields.js';
import { stepTo } from '../format.js';
import { budgetText, campaignLabel, statusMeaning, statusText } from './campaign-view.js';

// Bounds that keep one result small whatever the service sends.
const MAX_GEO = 20;
const MAX_REASONS = 10;

export const getAdCampaign = defineTool({
  name: 'get_ad_campaign',
  title: 'Get Ad Campaign',
  description:
    "One ad campaign: status, the ad platform's primary status and reasons, review, daily budget, landing page, geo targets, learning period. Read-only, free.",
  input: {
    app_id: appId,
    campaign_id: id('From list_ad_campaigns.'),
  },
  output: {
    campaign_id: z.string(),
    name: z.string(),
    type: z.string(),
    status: z.string().describe('ENABLED, PAUSED, REMOVED (deleted, kept for reporting) or UNKNOWN'),
    daily_budget: z.number().optional().describe('Currency units.'),
    adnet_campaign_id: z.string().describe('Empty while still being pushed to the ad platform.'),
    primary_status: z.string(),
    primary_status_reasons: z.array(z.string()),
    review_status: z.string(),
    serving_status: z.string(),
    landing_page: z.string(),
    geo_targets: z.array(z.string()).describe('The first 20.'),
    geo_target_count: z.number(),
    phone_number: z.string(),
    learning_ends_at: z.string().optional(),
    updated_date: z.string(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: the token needs access to this app (workspace API keys are refused by ad endpoints).',
    404: "App or campaign not found. campaign_id is the service's id, not the adnet campaign ID. list_ad_campaigns shows it.",
    429: 'Rate limited by the service (the ad platform can pass its own limit through).',
  },
  async run({ app_id, campaign_id }, ctx) {
    const { api, clock, signal } = ctx;
    const campaign = await api.getAdCampaign(app_id, campaign_id, { signal });
    const facts = factsOf(campaign);
    return {
      text: describe(app_id, campaign, facts, clock.now()),
      next:
        campaign.status === 'REMOVED'
          ? 'Nothing more: the campaign is deleted (REMOVED) and kept only for reporting.'
          : stepTo(ctx, 'list_campaign_suggestions', { app_id, campaign_id: campaign.id }, (call) => `See what to improve with ${call}.`),
      structured: facts,
      view: viewData(app_id, campaign, facts, clock.now()),
    };
  },
});

function factsOf(campaign: Campaign) {
  const geo = campaign.geo_targets ?? [];
  return {
    campaign_id: sanitize(campaign.id, 200),
    name: sanitize(campaign.campaign_name ?? '', 255),
    type: sanitize(campaign.campaign_type ?? '?', 30),
    status: sanitize(campaign.status, 30),
    ...(typeof campaign.daily_budget_micros === 'number' ? { daily_budget: campaign.daily_budget_micros / 1_000_000 } : {}),
    adnet_campaign_id: sanitize(campaign.adnet_campaign_id ?? '', 100),
    primary_status: sanitize(campaign.primary_status ?? '', 40),
    primary_status_reasons: (campaign.primary_status_reasons ?? []).slice(0, MAX_REASONS).map((reason) => sanitize(reason, 60)),
    review_status: sanitize(campaign.review_status ?? '', 40),
    serving_status: sanitize(campaign.serving_status ?? '', 40),
    landing_page: sanitize(campaign.landing_page ?? '', 300),
    geo_targets: geo.slice(0, MAX_GEO).map((target) => sanitize(target, 40)),
    geo_target_count: geo.length,
    phone_number: sanitize(campaign.phone_number ?? '', 40),
    ...(campaign.learning_ends_at ? { learning_ends_at: sanitize(campaign.learning_ends_at, 40) } : {}),
    updated_date: sanitize(campaign.updated_date ?? '', 40),
  };
}

function describe(app: string, campaign: Campaign, facts: ReturnType<typeof factsOf>, now: number): string {
  const budget = typeof campaign.daily_budget_micros === 'number' ? `daily budget ${budgetText(campaign.daily_budget_micros)}` : 'daily budget not given';
  const meaning = statusMeaning(facts.status);
  const platform = [
    facts.adnet_campaign_id ? `adnet id ${idText(facts.adnet_campaign_id)}` : 'adnet id: still being pushed to the ad platform',
    `primary status ${facts.primary_status ? idText(facts.primary_status) : 'not given'}${facts.primary_status_reasons.length ? ` (${facts.primary_status_reasons.map(idText).join(', ')})` : ''}`,
    `review ${facts.review_status ? idText(facts.review_status) : 'not synced yet'}`,
    servingText(facts.status, facts.serving_status),
  ];
  const more = facts.geo_target_count - facts.geo_targets.length;
  const geo = facts.geo_targets.length ? `${facts.geo_targets.map(idText).join(', ')}${more > 0 ? `, …and ${more} more` : ''}` : 'none';
  return [
    `Campaign ${campaignLabel(facts.campaign_id, campaign)}, ${idText(facts.type)}, on app ${idText(app)}: ${statusText(facts.status)}; ${budget}.`,
    ...(meaning ? [`${facts.status}: ${meaning}.`] : []),
    `Ad platform: ${platform.join('; ')}.`,
    `Landing page ${quote(facts.landing_page, 300)}; geo targets ${geo}; phone ${facts.phone_number ? quote(facts.phone_number, 40) : 'none'}.`,
    `Learning period: ${learning(facts.learning_ends_at, now)}; last changed ${facts.updated_date || 'unknown'}.`,
    NOT_IN_ANSWER,
  ].join('\n');
}

/**
 * What a person may expect of a campaign that the service's answer (2.3) does not hold (issue 29): a
 * "duplicate this campaign" copies only what is shown, and "when was it paused" has no field.
 */
const NOT_IN_ANSWER =
  'The service returns no ad text for a campaign (keyword themes, headlines, descriptions, business name), no images or sitelinks, and no pause date: last changed is its latest change of any kind. A copy of it needs those from the user.';

/** What the campaigns view shows beside the facts: the status, budget, serving and learning lines in the text's own words. */
function viewData(app: string, campaign: Campaign, facts: ReturnType<typeof factsOf>, now: number) {
  const meaning = statusMeaning(facts.status);
  const micros = campaign.daily_budget_micros;
  return {
    app_id: app,
    status_text: statusText(facts.status),
    ...(meaning ? { status_meaning: meaning } : {}),
    ...(typeof micros === 'number' ? { budget: budgetText(micros) } : {}),
    serving: servingText(facts.status, facts.serving_status),
    learning: learning(facts.learning_ends_at, now),
  };
}

/** What the ad platform reports as serving, while the service's own status says the campaign cannot serve. */
const SERVES = /^(SERVING|ELIGIBLE|ENABLED|ACTIVE|RUNNING)$/i;

/**
 * The ad platform's serving status, read against the service's own status (2.3: it is passed through
 * and lags behind): a paused or deleted campaign whose last synced platform status still says it
 * serves is not serving, and the text says so rather than showing two statuses that disagree.
 */
function servingText(status: string, serving: string): string {
  if (!serving) return 'serving status not given';
  if ((status === 'PAUSED' || status === 'REMOVED') && SERVES.test(serving)) {
    return `serving status ${idText(serving)} was synced before the campaign was ${status === 'PAUSED' ? 'paused' : 'deleted'}: it does not serve, and the ad platform catches up within minutes`;
  }
  return `serving ${idText(serving)} (read with review: it can lag behind)`;
}

/** 2.3: learning_ends_at is expected, not promised; a date already passed reads "ended". */
function learning(endsAt: string | undefined, now: number): string {
  if (!endsAt) return 'not started';
  const at = Date.parse(endsAt);
  return Number.isNaN(at) || at > now ? `ends ${endsAt}` : `ended ${endsAt}`;
}
