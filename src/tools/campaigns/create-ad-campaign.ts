import type { Campaign } from '../api/schemas.js';
import { campaignInput, planCampaign, type CampaignPlan } from './campaign-body.js';
import { defineTool } from './define.js';
import { DAYS_PER_MONTH, idText, money, plural, quote, sanitize } from './format.js';

export const createAdCampaign = defineTool({
  name: 'create_ad_campaign',
  title: 'Create Ad Campaign',
  description:
    "Create a SMART or PERFORMANCE_MAX ad campaign on the app's adnet account. Spends real money (the daily budget) once it serves. Two calls: the first checks the inputs and returns a cost warning for the user; after they agree, repeat with the same arguments plus confirm: true. May start PAUSED. Never retried. Returns the campaign id for list_campaign_suggestions.",
  input: campaignInput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  cost: 'money',
  gate: {
    warning: (args, config) => warningText(args, planCampaign(args, config)),
    approval: (args) =>
      `Create ${args.campaign_type} ad campaign ${quote(args.campaign_name, 80)} on app ${args.app_id} with a daily budget of ${money(args.daily_budget_micros)} (account currency; about ${money(args.daily_budget_micros * DAYS_PER_MONTH)} a month). Spends real money once it serves.`,
    unknownOutcome:
      "The campaign may or may not exist (the ad platform can time out after accepting it). Check the app's campaign list in the service for this campaign name before creating again.",
  },
  statusHints: {
    400: 'The ad platform rejected the campaign (ad text, unreachable landing page, budget below the currency minimum), or phone_number is not E.164 (+14155550100). No campaign was created. Fix the cause, then start over: changed arguments get a new warning.',
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The workspace has no payment method or its account is not in good standing. No campaign was created. Fix billing in the service, then start over.',
    403: 'The credential may not create campaigns for this app (workspace API keys are refused by ad endpoints). No campaign was created.',
    404: "App not found (or not in the credential's workspace). No campaign was created.",
    409: "The ad platform may have timed out: the campaign may or may not exist. Check the app's campaign list in the service before creating again.",
    422: 'The service rejected the campaign; none was created. A missing EU political advertising declaration is fixed by setting contains_eu_political_advertising; an unfetchable logo or an image address that is not an image also end here.',
    429: 'Rate limit exceeded; no campaign was created (creation is never retried automatically).',
  },
  async run(args, { api, config, signal }) {
    const { body } = planCampaign(args, config);
    const campaign = await api.createAdCampaign(args.app_id, body, { signal });
    return { text: resultText(args.app_id, campaign) };
  },
});

type Args = Parameters<typeof planCampaign>[0];

function warningText(args: Args, plan: CampaignPlan): string {
  const daily = args.daily_budget_micros;
  const targeting = [
    args.geo_targets?.length ? `geo targets ${args.geo_targets.map((id) => sanitize(id, 40)).join(', ')}` : 'no geo targets given',
    args.keyword_themes?.length ? `keyword themes ${args.keyword_themes.map((theme) => quote(theme, 60)).join(', ')}` : undefined,
    args.campaign_settings?.language_code ? `language ${sanitize(args.campaign_settings.language_code, 20)}` : undefined,
  ].filter(Boolean);
  const lines = [
    `Will create ${args.campaign_type} ad campaign ${quote(args.campaign_name, 100)} on app ${args.app_id} at the ad platform (adnet).`,
    `Landing page: ${sanitize(args.landing_page, 300)}. Targeting: ${targeting.join('; ')}.`,
  ];
  const assets = assetSummary(plan.body);
  if (assets) lines.push(`Also sent: ${assets}.`);
  if (plan.ignored.length) lines.push(`Ignored for SMART (not sent): ${plan.ignored.join(', ')}.`);
  lines.push(
    `Cost: daily budget ${money(daily)} in the account currency, roughly ${money(daily * DAYS_PER_MONTH)} a month. It spends real money once it serves. It may start PAUSED (when conversion tracking is not verified): then nothing is spent until it is enabled in the service.`,
  );
  if (plan.platformWarnings.length) {
    lines.push(`Ad-platform limits broken (it will likely reject the campaign with a 400): ${plan.platformWarnings.join('; ')}.`);
  }
  return lines.join('\n');
}

function assetSummary(body: Record<string, unknown>): string {
  const parts: string[] = [];
  const count = (field: string, noun: string) => {
    const list = body[field];
    if (Array.isArray(list)) parts.push(plural(list.length, noun));
  };
  if (typeof body.logo_url === 'string') parts.push('logo');
  if (Array.isArray(body.images)) {
    const images = body.images as Array<{ kind: string }>;
    const square = images.filter((image) => image.kind === 'SQUARE_MARKETING_IMAGE').length;
    parts.push(`${plural(images.length, 'image')} (${images.length - square} marketing, ${square} square)`);
  }
  count('sitelinks', 'sitelink');
  count('headlines', 'headline');
  count('descriptions', 'description');
  if (typeof body.business_name === 'string') parts.push(`business name ${quote(body.business_name, 60)}`);
  if (typeof body.phone_number === 'string') parts.push(`phone ${body.phone_number}`);
  if (typeof body.contains_eu_political_advertising === 'boolean') {
    parts.push(`EU political advertising: ${body.contains_eu_political_advertising ? 'yes' : 'no'}`);
  }
  return parts.join(', ');
}

const STATUS_MEANING: Record<string, string> = {
  PAUSED:
    'created but not serving, because conversion tracking is not verified; nothing is spent until it is enabled in the service',
  ENABLED: 'serving once the ad platform allows it; it spends up to about the daily budget each day',
};

function resultText(app: string, campaign: Campaign): string {
  const id = idText(campaign.id);
  const status = sanitize(campaign.status, 40);
  const adnet = campaign.adnet_campaign_id ? `adnet id ${idText(campaign.adnet_campaign_id)}` : 'adnet id: still being pushed to the ad platform';
  const lines = [
    `Created campaign ${id} (${quote(campaign.campaign_name ?? '', 100)}, ${sanitize(campaign.campaign_type ?? '?', 30)}) on app ${app}; ${adnet}.`,
    `Status: ${status}${STATUS_MEANING[status] ? `: ${STATUS_MEANING[status]}` : ''}.`,
  ];
  const review = [
    campaign.review_status ? `review ${sanitize(campaign.review_status, 40)}` : undefined,
    campaign.primary_status ? `primary status ${sanitize(campaign.primary_status, 40)}` : undefined,
    campaign.primary_status_reasons?.length ? `reasons ${campaign.primary_status_reasons.map((r) => sanitize(r, 60)).join(', ')}` : undefined,
    campaign.learning_ends_at ? `learning period ends ${sanitize(campaign.learning_ends_at, 40)}` : undefined,
  ].filter(Boolean);
  if (review.length) lines.push(`Ad platform: ${review.join('; ')}.`);
  lines.push(
    `Next: check its status in the service (do not assume it serves); in a few days call list_campaign_suggestions with campaign_id ${id}.`,
  );
  return lines.join('\n');
}
