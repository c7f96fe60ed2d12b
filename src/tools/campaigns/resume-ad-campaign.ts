import { z } from 'zod';
import { RefusedError } from '../../errors.js';
import { idText, sanitize } from '../../text.js';
import type { Campaign } from '../../api/schemas.js';
import { defineTool, type Commitment, type ToolContext, type Warning } from '../define.js';
import { appId, id } from '../fields.js';
import { money, stepTo } from '../format.js';
import { campaignLabel, monthly, statusText } from './campaign-view.js';

const SERVICE_PAUSED =
  'A campaign the service paused itself (unpaid balance, unverified conversion tracking) is paused again while that reason holds.';

export const resumeAdCampaign = defineTool({
  name: 'resume_ad_campaign',
  title: 'Resume Ad Campaign',
  description:
    "Resume a paused ad campaign: it serves again and spends up to its daily budget each day (real money). Needs a payment method.",
  input: {
    app_id: appId,
    campaign_id: id('From list_ad_campaigns.'),
  },
  output: {
    campaign_id: z.string(),
    action: z.string().describe('What the service says it did: resumed.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  cost: 'money',
  gate: {
    warn: (args, ctx) => warning(args, ctx),
    commits: async ({ app_id, campaign_id }, { api, signal }) => commitment(await api.getAdCampaign(app_id, campaign_id, { signal })),
    unknownOutcome:
      'The campaign may or may not have been resumed (the ad platform can time out after applying it). Read it back with get_ad_campaign before trying again.',
    done: ({ structured }) => `resumed the campaign (the service answered ${String(structured?.action ?? 'resumed')})`,
  },
  statusHints: {
    400: 'The campaign cannot be resumed: it is deleted (REMOVED) or the ad platform refused. Nothing changed.',
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The workspace has no payment method or its account is not in good standing: the campaign stays paused. Fix billing in the service, then start over.',
    403: 'Not allowed: resuming needs a full-access token with editor access to this app (workspace API keys are refused by ad endpoints).',
    404: "App or campaign not found. campaign_id is the service's id, not the adnet campaign ID. list_ad_campaigns shows it.",
    429: 'Rate limited by the service; nothing changed (this server never retries a resume on its own).',
  },
  async run({ app_id, campaign_id }, ctx) {
    const answer = await ctx.api.resumeAdCampaign(app_id, campaign_id, { signal: ctx.signal });
    const action = sanitize(answer.action ?? 'resumed', 40);
    return {
      text: [
        `Resumed campaign ${idText(campaign_id)} on app ${idText(app_id)} (the service answered ${idText(action)}): it can serve and spend again.`,
        SERVICE_PAUSED,
      ].join('\n'),
      next: stepTo(ctx, 'get_ad_campaign', { app_id, campaign_id }, (call) => `Confirm it is ENABLED with ${call}.`),
      structured: { campaign_id: sanitize(campaign_id, 200), action },
    };
  },
});

/**
 * Reads the campaign, so the user sees what resuming will spend. The same read proves the token, the
 * app and the campaign before the gate remembers anything (issue 16): a 401 or 404 ends the call here.
 * @throws RefusedError for a deleted campaign.
 */
async function warning({ app_id, campaign_id }: { app_id: string; campaign_id: string }, { api, signal }: ToolContext): Promise<Warning> {
  const campaign = await api.getAdCampaign(app_id, campaign_id, { signal });
  if (campaign.status === 'REMOVED') {
    throw new RefusedError(`Campaign ${idText(campaign_id)} is deleted (REMOVED): it can never serve again. Nothing was sent.`);
  }
  const micros = campaign.daily_budget_micros;
  const details = [
    `Campaign ${idText(campaign_id)} is now ${statusText(campaign.status)}.`,
    'It re-opens spend: the campaign serves again and spends up to about its daily budget every day until paused.',
    'Needs a payment method and an account in good standing; otherwise the service answers 402 and it stays paused.',
    SERVICE_PAUSED,
  ];
  const running = campaign.status === 'ENABLED';
  if (running) details.push('It is already ENABLED: resuming changes nothing.');
  const budget =
    typeof micros === 'number'
      ? `daily budget ${money(micros)} in the account currency, roughly ${money(monthly(micros))} a month`
      : 'its daily budget (the service did not give it) every day';
  return {
    commits: commitment(campaign),
    action: `Resume campaign ${campaignLabel(campaign_id, campaign)} on app ${idText(app_id)}`,
    // The structured cost says it too: a client that shows only structured content must not read a new spend here.
    cost: running
      ? `nothing new: it is already ENABLED and spends up to its daily budget${typeof micros === 'number' ? ` (${money(micros)} a day)` : ''} either way; confirming changes nothing.`
      : `${budget}; real money while it serves.`,
    details,
  };
}

/** Resuming commits the campaign's daily budget, unless it already serves (or is deleted): then nothing new. */
function commitment(campaign: Pick<Campaign, 'status' | 'daily_budget_micros'>): Commitment {
  if (campaign.status === 'ENABLED' || campaign.status === 'REMOVED') return { micros: 0 };
  return { micros: campaign.daily_budget_micros ?? undefined };
}
