import { z } from 'zod';
import { idText, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, text } from '../fields.js';
import { aside } from '../format.js';

/** Service facts: insight_id is 1-200 characters, sent as a query parameter. */
const MAX_INSIGHT_ID = 200;

export const dismissCampaignSuggestion = defineTool({
  name: 'dismiss_campaign_suggestion',
  title: 'Dismiss Campaign Suggestion',
  description:
    "Hide one suggestion for everyone in the workspace. Cannot be undone; free, safe to repeat.",
  input: {
    app_id: appId,
    insight_id: text(MAX_INSIGHT_ID).describe('Its id, from list_campaign_suggestions.'),
  },
  output: {
    insight_id: z.string(),
    dismissed: z.boolean().describe('The service always answers true, even for unknown ids.'),
  },
  // Irreversible and account-wide: a suggestion hidden for everyone cannot be brought back.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: dismissing needs a full-access token with editor access to this app (workspace API keys are refused by ad endpoints).',
    404: "App not found (or not in the credential's workspace).",
    422: 'The service refused the insight_id: pass a suggestion id from list_campaign_suggestions (1-200 characters).',
    429: 'Rate limited by the service.',
  },
  async run({ app_id, insight_id }, ctx) {
    const answer = await ctx.api.dismissInsight(app_id, insight_id, { signal: ctx.signal });
    if (answer.dismissed === false) {
      return { isError: true, text: `The service answered dismissed: false for ${idText(insight_id)}: the suggestion may still show.`, next: 'Try again later.' };
    }
    return {
      text: [
        `Dismissed suggestion ${idText(insight_id)} on app ${idText(app_id)}: it is hidden for the whole account (everyone in the workspace, every campaign) and cannot be undone through the API.`,
        'The service answers the same for ids it does not know, so this does not confirm the id existed. It keeps a bounded number of dismissals, so a very old one can reappear.',
      ].join('\n'),
      next: `Nothing more is needed${aside(ctx, 'list_campaign_suggestions', {}, (call) => `; ${call} no longer shows it`)}.`,
      structured: { insight_id: sanitize(insight_id, MAX_INSIGHT_ID), dismissed: true },
    };
  },
});
