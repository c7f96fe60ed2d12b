import { z } from 'zod';
import { idText, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, id } from '../fields.js';
import { aside, stepTo } from '../format.js';

export const pauseAdCampaign = defineTool({
  name: 'pause_ad_campaign',
  title: 'Pause Ad Campaign',
  description:
    "Pause an ad campaign: it stops serving and spending within minutes (today's spend is still billed). Free, safe to repeat. Undo with resume_ad_campaign.",
  input: {
    app_id: appId,
    campaign_id: id('From list_ad_campaigns.'),
  },
  output: {
    campaign_id: z.string(),
    action: z.string().describe('What the service says it did: paused.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    400: 'The campaign cannot be paused: it is deleted (REMOVED) or the ad platform refused. Nothing changed.',
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: pausing needs a full-access token with editor access to this app (workspace API keys are refused by ad endpoints).',
    404: "App or campaign not found. campaign_id is the service's id, not the adnet campaign ID. list_ad_campaigns shows it.",
    409: 'The ad platform timed out after the request was sent: the pause may or may not have applied. Read the campaign back before retrying. get_ad_campaign shows its status.',
    429: 'Rate limited by the service (the ad platform can pass its own limit through).',
  },
  async run({ app_id, campaign_id }, ctx) {
    const answer = await ctx.api.pauseAdCampaign(app_id, campaign_id, { signal: ctx.signal });
    const action = sanitize(answer.action ?? 'paused', 40);
    return {
      text: [
        `Paused campaign ${idText(campaign_id)} on app ${idText(app_id)} (the service answered ${idText(action)}).`,
        'It stops serving within minutes; spend already incurred today is still billed. If it was already paused, nothing changed.',
      ].join('\n'),
      next: `${stepTo(ctx, 'get_ad_campaign', { app_id, campaign_id }, (call) => `Check its status with ${call}.`)}${aside(ctx, 'resume_ad_campaign', {}, (call) => ` To re-open spend later, when the user wants it: ${call}.`)}`,
      structured: { campaign_id: sanitize(campaign_id, 200), action },
    };
  },
});
