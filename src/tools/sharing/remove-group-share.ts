import { z } from 'zod';
import { idText, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, id } from '../fields.js';
import { aside } from '../format.js';

export const removeGroupShare = defineTool({
  name: 'remove_group_share',
  title: 'Remove Group Share',
  description:
    "Unshare the app from one group: members with access only through it lose it; others keep their highest remaining role. Safe to retry.",
  input: {
    app_id: appId,
    share_id: id('From list_group_shares.'),
  },
  output: {
    share_id: z.string(),
    removed: z.boolean(),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token. The share is unchanged.',
    403: 'Not allowed: removing a share needs editor access to the app and an editor or admin role in the workspace. The share is unchanged.',
    404: 'App or share not found: the share may already be removed. list_group_shares shows the current ones.',
    429: 'Rate limit exceeded; the share is unchanged, and a retry after a short wait is safe.',
    read_only: 'Removing a share needs a full-access token: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. The share is unchanged.',
  },
  async run({ app_id, share_id }, ctx) {
    const answer = await ctx.api.removeGroupShare(app_id, share_id, { signal: ctx.signal });
    const shown = idText(share_id);
    const list = (say: (call: string) => string) => aside(ctx, 'list_group_shares', { app_id }, say);
    if (answer.removed === false) {
      return {
        isError: true,
        text: `The service answered that share ${shown} was not removed; the share is unchanged, so a retry is safe.`,
        next: `Call remove_group_share again${list((call) => `, or check with ${call}`)}.`,
      };
    }
    return {
      text: [
        `Removed share ${shown} from app ${idText(app_id)}.`,
        "Members who had access only through this group lost it; the others keep their highest remaining role (direct or through another shared group).",
      ].join('\n'),
      next: `Nothing more is needed${list((call) => `; ${call} shows the remaining shares`)}.`,
      structured: { share_id: sanitize(share_id, 200), removed: true },
    };
  },
});
