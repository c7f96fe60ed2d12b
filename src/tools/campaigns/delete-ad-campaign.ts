import { z } from 'zod';
import { RefusedError } from '../../errors.js';
import { idText, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type Warning } from '../define.js';
import { appId, id } from '../fields.js';
import { aside, money } from '../format.js';
import { campaignLabel, statusText } from './campaign-view.js';

export const deleteAdCampaign = defineTool({
  name: 'delete_ad_campaign',
  title: 'Delete Ad Campaign',
  description:
    "Delete an ad campaign for good: it stops serving, can never be resumed, and stays listed as REMOVED. To stop spend reversibly, pause it.",
  input: {
    app_id: appId,
    campaign_id: id('From list_ad_campaigns.'),
  },
  output: {
    campaign_id: z.string(),
    action: z.string().describe('What the service says it did: deleted.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  cost: 'permanent',
  gate: {
    warn: (args, ctx) => warning(args, ctx),
    unknownOutcome:
      'The campaign may or may not have been deleted (the ad platform can time out after applying it). Read it back with get_ad_campaign (status REMOVED means deleted) before trying again.',
    done: () => 'deleted the campaign (it stays listed as REMOVED)',
  },
  statusHints: {
    400: 'The ad platform refused to delete the campaign. Nothing changed.',
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: deleting needs a full-access token with editor access to this app (workspace API keys are refused by ad endpoints).',
    404: "App or campaign not found. campaign_id is the service's id, not the adnet campaign ID. list_ad_campaigns shows it.",
    429: 'Rate limited by the service; nothing changed (this server never retries a delete on its own).',
  },
  async run({ app_id, campaign_id }, ctx) {
    const answer = await ctx.api.deleteAdCampaign(app_id, campaign_id, { signal: ctx.signal });
    const action = sanitize(answer.action ?? 'deleted', 40);
    return {
      text: [
        `Deleted campaign ${idText(campaign_id)} on app ${idText(app_id)} (the service answered ${idText(action)}).`,
        'It no longer serves or spends (spend already incurred today is still billed) and cannot be undone; it stays listed with status REMOVED for reporting.',
      ].join('\n'),
      next: `Nothing more is needed${aside(ctx, 'list_ad_campaigns', { app_id }, (call) => `; ${call} shows it as REMOVED`)}.`,
      structured: { campaign_id: sanitize(campaign_id, 200), action },
    };
  },
});

/**
 * Reads the campaign, so the user sees which one goes. The same read proves the token, the app and the
 * campaign before the gate remembers anything (issue 16): a 401 or 404 ends the call here.
 * @throws RefusedError when it is already deleted.
 */
async function warning({ app_id, campaign_id }: { app_id: string; campaign_id: string }, ctx: ToolContext): Promise<Warning> {
  const campaign = await ctx.api.getAdCampaign(app_id, campaign_id, { signal: ctx.signal });
  if (campaign.status === 'REMOVED') {
    throw new RefusedError(`Campaign ${idText(campaign_id)} is already deleted (REMOVED); there is nothing to delete. Nothing was sent.`);
  }
  const budget = typeof campaign.daily_budget_micros === 'number' ? `, daily budget ${money(campaign.daily_budget_micros)}` : '';
  return {
    action: `Delete campaign ${campaignLabel(campaign_id, campaign)} on app ${idText(app_id)}`,
    cost: 'permanent, no undo: the campaign can never serve or be resumed again.',
    details: [
      `Campaign ${idText(campaign_id)} is now ${statusText(campaign.status)}${budget}.`,
      'What disappears: its ads stop at the ad platform and it stops spending (spend already incurred today is still billed); it can no longer be paused, resumed or changed, and its suggestions no longer apply.',
      'What stays: the campaign remains listed with status REMOVED, kept for reporting.',
      ...(ctx.offered.has('pause_ad_campaign') ? ['To stop spend and keep the option to restart, use pause_ad_campaign instead.'] : []),
    ],
  };
}
