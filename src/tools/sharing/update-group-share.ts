import { z } from 'zod';
import type { GroupShare } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId, id, text } from '../fields.js';
import { aside } from '../format.js';
import { roleText } from './share-text.js';

/** The top role in the service's examples; any other new role may lower some members. */
const TOP_ROLE = 'admin';

export const updateGroupShare = defineTool({
  name: 'update_group_share',
  title: 'Update Group Share',
  description:
    "Set the app role a shared group gives its members. Same role again changes nothing. Free.",
  input: {
    app_id: appId,
    share_id: id('From list_group_shares.'),
    role: text(100).optional().describe('user (the default) or admin; an app may define others (a refused role\'s error names them).'),
  },
  output: {
    share_id: z.string(),
    group_id: z.string(),
    group_name: z.string(),
    role: z.string().describe('Empty: the default role (user).'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The workspace plan does not include workspace groups; changing group shares needs a plan that does. Nothing changed.',
    403: 'Not allowed: changing a share needs editor access to the app and an editor or admin role in the workspace. Nothing changed.',
    404: 'App or share not found (the share may have been removed): list_group_shares shows the current share_ids.',
    422: "The role is not one of this app's roles; nothing changed. The service's answer below names the roles it accepts; omit role for the default (user).",
    429: 'Rate limit exceeded; nothing changed, and a retry after a short wait is safe.',
    read_only: 'Changing a share needs a full-access token: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Nothing changed.',
  },
  async run({ app_id, share_id, role }, ctx) {
    // The whole new value: no role is sent as null, which gives the default role.
    const share = await ctx.api.updateGroupShare(app_id, share_id, role ?? null, { signal: ctx.signal });
    return describeUpdate(ctx, app_id, share_id, role, share);
  },
});

function describeUpdate(ctx: ToolContext, app: string, shareId: string, asked: string | undefined, share: GroupShare): ToolResult {
  const role = share.role ?? null;
  const group = share.group_id
    ? `group ${idText(share.group_id)}${share.group_name ? ` (${quote(share.group_name, 100)})` : ''}`
    : 'the group';
  const lines = [`Share ${idText(share.id || shareId)} of app ${idText(app)}: ${group} now gives its members ${roleText(role)}.`];
  if ((asked ?? null) !== role) lines.push(`The service answered with ${roleText(role)}, not the ${roleText(asked)} sent.`);
  if (role !== TOP_ROLE) {
    lines.push(
      'If this lowered the role, members who have a higher role directly or through another shared group keep it: a member gets the highest of those roles.',
    );
  }
  return {
    text: lines.join('\n'),
    next: `Nothing more is needed${aside(ctx, 'list_group_shares', { app_id: app }, (call) => `; ${call} shows every share and its role`)}.`,
    structured: {
      share_id: sanitize(share.id || shareId, 200),
      group_id: sanitize(share.group_id ?? '', 200),
      group_name: sanitize(share.group_name ?? '', 100),
      role: sanitize(role ?? '', 100),
    },
  };
}
