import { z } from 'zod';
import type { Campaign } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type Warning } from '../define.js';
import { DAYS_PER_MONTH, money, nextCall, plural } from '../format.js';
import { campaignInput, planCampaign, type CampaignPlan } from './campaign-body.js';

/**
 * Characters each field of the warning may take; past them, a list ends with a count of the rest.
 * Ad-platform-sized inputs fit whole (15 headlines of 30 characters, 5 descriptions of 90); the
 * largest request the inputs allow stays under 2,000 tokens (test/budget.test.ts).
 */
const FIELD_CHARS: Record<string, number> = {
  keyword_themes: 400,
  geo_targets: 300,
  images: 500,
  sitelinks: 600,
  headlines: 600,
  descriptions: 550,
  campaign_settings: 600,
};
const DEFAULT_FIELD_CHARS = 300;

export const createAdCampaign = defineTool({
  name: 'create_ad_campaign',
  title: 'Create Ad Campaign',
  description:
    "Create a SMART or PERFORMANCE_MAX ad campaign on the app's adnet account. Spends real money (the daily budget) once it serves; may start PAUSED; never retried. Returns the campaign id.",
  input: campaignInput,
  output: {
    campaign_id: z.string(),
    campaign_name: z.string(),
    status: z.string().describe('ENABLED, PAUSED, REMOVED or UNKNOWN'),
    adnet_campaign_id: z.string().describe('Empty while still being pushed to the ad platform.'),
    daily_budget: z.number().describe('Currency units.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  cost: 'money',
  gate: {
    check: (args, config) => void planCampaign(args, config),
    warn: (args, { config }) => warning(args, planCampaign(args, config)),
    unknownOutcome:
      'The campaign may or may not exist (the ad platform can time out after accepting it). Look for this name with list_ad_campaigns before creating again.',
  },
  statusHints: {
    400: 'The ad platform rejected the campaign (ad text, unreachable landing page, budget below the currency minimum), or phone_number is not E.164 (+14155550100). No campaign was created. Fix the cause, then start over: changed arguments get a new warning.',
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The workspace has no payment method or its account is not in good standing. No campaign was created. Fix billing in the service, then start over.',
    403: 'The credential may not create campaigns for this app (workspace API keys are refused by ad endpoints). No campaign was created.',
    404: "App not found (or not in the credential's workspace). No campaign was created.",
    409: 'The ad platform may have timed out: the campaign may or may not exist. Look for it with list_ad_campaigns before creating again.',
    422: 'The service rejected the campaign; none was created. A missing EU political advertising declaration is fixed by setting contains_eu_political_advertising; an unfetchable logo or an image address that is not an image also end here.',
    429: 'Rate limit exceeded; no campaign was created (creation is never retried automatically).',
  },
  async run(args, { api, config, signal }) {
    const { body } = planCampaign(args, config);
    const campaign = await api.createAdCampaign(args.app_id, body, { signal });
    return {
      text: resultText(args.app_id, campaign),
      next: `Read its status with ${nextCall(config, 'get_ad_campaign', { app_id: args.app_id, campaign_id: campaign.id })} (do not assume it serves), and its suggestions with list_campaign_suggestions once it has run a few days.`,
      structured: {
        campaign_id: sanitize(campaign.id, 200),
        campaign_name: sanitize(campaign.campaign_name ?? '', 255),
        status: sanitize(campaign.status, 40),
        adnet_campaign_id: sanitize(campaign.adnet_campaign_id ?? '', 100),
        daily_budget: (campaign.daily_budget_micros ?? args.daily_budget_micros) / 1_000_000,
      },
    };
  },
});

type Args = Parameters<typeof planCampaign>[0];

function warning(args: Args, plan: CampaignPlan): Warning {
  const daily = args.daily_budget_micros;
  const details = [...bodyLines(plan.body)];
  if (plan.ignored.length) details.push(`Ignored for SMART (not sent): ${plan.ignored.join(', ')}.`);
  if (plan.platformWarnings.length) {
    details.push(`Ad-platform limits broken (it will likely reject the campaign with a 400): ${plan.platformWarnings.join('; ')}.`);
  }
  details.push('It may start PAUSED (when conversion tracking is not verified): then nothing is spent until it is enabled in the service.');
  return {
    action: `Create ${args.campaign_type} ad campaign ${quote(args.campaign_name, 80)} on app ${idText(args.app_id)} at the ad platform (adnet)`,
    cost: `daily budget ${money(daily)} in the account currency, roughly ${money(Math.round(daily * DAYS_PER_MONTH))} a month; real money once it serves.`,
    details,
  };
}

/** Every field of the body that will be sent, one line each; long lists show their first items and a count. */
function bodyLines(body: Record<string, unknown>): string[] {
  const lines = ['Request body (exactly what is sent):'];
  for (const [name, value] of Object.entries(body)) {
    const room = FIELD_CHARS[name] ?? DEFAULT_FIELD_CHARS;
    let text: string;
    if (name === 'campaign_settings') text = settingsText(value as Record<string, unknown>, room);
    else if (name === 'daily_budget_micros') text = `${value} (${money(value as number)} a day)`;
    else if (name === 'images') text = list(value as Array<{ kind: string; url: string }>, room, (image) => `${image.kind} ${quote(image.url, 80)}`);
    else if (name === 'sitelinks') text = list(value as Array<{ text: string; url: string }>, room, (link) => `${quote(link.text, 30)} -> ${quote(link.url, 60)}`);
    else if (Array.isArray(value)) text = list(value as string[], room, (item) => quote(item, 95));
    else if (typeof value === 'string') text = quote(value, name === 'campaign_name' ? 255 : room);
    else text = JSON.stringify(value);
    lines.push(`- ${name}: ${text}`);
  }
  return lines;
}

/** "N items: a, b, …and K more": as many items as fit in `room` characters, then a count. */
function list<T>(items: T[], room: number, show: (item: T) => string, noun = 'item'): string {
  const shown: string[] = [];
  let used = 0;
  for (const item of items) {
    const text = show(item);
    if (shown.length > 0 && used + text.length > room) break;
    shown.push(text);
    used += text.length + 2;
  }
  const more = items.length - shown.length;
  return `${plural(items.length, noun)}: ${shown.join(', ')}${more > 0 ? `, …and ${more} more` : ''}`;
}

/** The pass-through settings key by key: a person confirms these too. */
function settingsText(settings: Record<string, unknown>, room: number): string {
  return list(Object.entries(settings), room, ([key, value]) => {
    const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? 'null');
    const shownValue = typeof value === 'string' ? quote(value, 60) : sanitize(text, 60);
    return `${quote(key, 40)}: ${shownValue}${text.length > 60 ? ` (${text.length} characters)` : ''}`;
  }, 'key');
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
    `Created campaign ${id} (${quote(campaign.campaign_name ?? '', 100)}, ${sanitize(campaign.campaign_type ?? '?', 30)}) on app ${idText(app)}; ${adnet}.`,
    `Status: ${status}${STATUS_MEANING[status] ? `: ${STATUS_MEANING[status]}` : ''}.`,
  ];
  const review = [
    campaign.review_status ? `review ${sanitize(campaign.review_status, 40)}` : undefined,
    campaign.primary_status ? `primary status ${sanitize(campaign.primary_status, 40)}` : undefined,
    campaign.primary_status_reasons?.length ? `reasons ${campaign.primary_status_reasons.map((r) => sanitize(r, 60)).join(', ')}` : undefined,
    campaign.learning_ends_at ? `learning period ends ${sanitize(campaign.learning_ends_at, 40)}` : undefined,
  ].filter(Boolean);
  if (review.length) lines.push(`Ad platform: ${review.join('; ')}.`);
  return lines.join('\n');
}
