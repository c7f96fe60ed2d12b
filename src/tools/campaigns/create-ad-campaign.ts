import { z } from 'zod';
import type { Campaign } from '../../api/schemas.js';
import { idText, quote, sanitize, sentText } from '../../text.js';
import { defineTool, type Warning } from '../define.js';
import { aside, money, stepTo } from '../format.js';
import { campaignInput, planCampaign, type CampaignPlan } from './campaign-body.js';
import { bodyLines } from './campaign-body-text.js';
import { moneyText } from './campaign-settings.js';
import { monthly, underOneUnit } from './campaign-view.js';

export const createAdCampaign = defineTool({
  name: 'create_ad_campaign',
  title: 'Create Ad Campaign',
  description:
    "Create an ad campaign on the app's adnet account. Spends real money (the daily budget) once it serves.",
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
    warn: async (args, ctx) => {
      const plan = planCampaign(args, ctx.config);
      // One cheap read before the gate remembers anything (issue 16): the fast list (no live metrics)
      // proves the token, the app and access to its ad endpoints; a 401/403/404 ends the call here.
      await ctx.api.listAdCampaigns(args.app_id, false, { signal: ctx.signal });
      return warning(args, plan);
    },
    commits: (args) => ({ micros: args.daily_budget_micros }),
    unknownOutcome:
      'The campaign may or may not exist (the ad platform can time out after accepting it). Look for this name with list_ad_campaigns before creating again.',
    done: ({ structured }) => `created campaign ${String(structured?.campaign_id ?? '(no id in the answer)')}, status ${String(structured?.status ?? 'not given')}`,
  },
  statusHints: {
    400: 'The ad platform rejected the campaign (ad text, unreachable landing page, budget below the currency minimum), or phone_number is not E.164 (+14155550100). No campaign was created. Fix the cause, then start over: changed arguments get a new warning.',
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The workspace has no payment method or its account is not in good standing. No campaign was created. Fix billing in the service, then start over.',
    403: 'The credential may not create campaigns for this app (workspace API keys are refused by ad endpoints). No campaign was created.',
    404: "App not found (or not in the credential's workspace). No campaign was created. No operation lists apps: the app id comes from the user.",
    409: 'The ad platform may have timed out: the campaign may or may not exist. Look for it with list_ad_campaigns before creating again.',
    422: "The service rejected the campaign; none was created. A missing EU political advertising declaration: set contains_eu_political_advertising. A logo or image must be the address of an image file (not a web page) of at most 5 MB that the service can fetch (not on another host than it fetches from), the logo at least 128x128; the service's answer below names which one it refused.",
    429: 'Rate limit exceeded; no campaign was created (this server never retries a creation on its own).',
  },
  async run(args, ctx) {
    const { body } = planCampaign(args, ctx.config);
    const campaign = await ctx.api.createAdCampaign(args.app_id, body, { signal: ctx.signal });
    const target = { app_id: args.app_id, campaign_id: campaign.id };
    return {
      text: resultText(args.app_id, campaign),
      next: `${stepTo(ctx, 'get_ad_campaign', target, (call) => `Read its status with ${call} (do not assume it serves).`)}${aside(ctx, 'list_campaign_suggestions', {}, (call) => ` Its suggestions: ${call}, once it has run a few days.`)}`,
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
    action: `Create ${args.campaign_type} ad campaign ${sentText(args.campaign_name, 80).text} on app ${idText(args.app_id)} at the ad platform (adnet)`,
    cost: `daily budget ${money(daily)} in the account currency${underOneUnit(daily)}, roughly ${money(monthly(daily))} a month${moneyText(plan.settingsMoney)}; real money once it serves.`,
    details,
  };
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
