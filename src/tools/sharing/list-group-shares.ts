import { z } from 'zod';
import type { GroupShare } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId, whole } from '../fields.js';
import { approxTokens, aside, capitalized, fitBudget, nextCall, plural } from '../format.js';
import { roleText } from './share-text.js';

/** Rows shown, and the (approximate) tokens their text may take: the result stays far under 2,000 tokens. */
const MAX_ROWS = 25;
/** An app can be shared with every group of its workspace; this only bounds the input. */
const MAX_SKIP = 10_000;
const ROWS_TOKENS = 550;

const Row = z.strictObject({
  share_id: z.string(),
  group_id: z.string(),
  group_name: z.string(),
  role: z.string().describe('Empty: no role given, members get the default role (user).'),
  created_date: z.string(),
});
type Row = z.infer<typeof Row>;

export const listGroupShares = defineTool({
  name: 'list_group_shares',
  title: 'List Group Shares',
  description:
    "The workspace groups the app is shared with, each with its role and share_id. Read-only; needs editor access.",
  input: {
    app_id: appId,
    skip: whole(0, MAX_SKIP).optional().describe('Rows to skip.'),
  },
  output: {
    shares: z.array(Row).describe(`At most ${MAX_ROWS}.`),
    total: z.number().describe('Shares the service returned.'),
    next_skip: z.number().optional().describe('skip value for the rows not shown.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: listing group shares needs editor access to the app (workspace API keys are refused).',
    404: "App not found, or not in the token's workspace. Check app_id.",
    429: 'Rate limit exceeded; a retry after a short wait is safe.',
    read_only: 'Listing group shares needs a full-access token even though it changes nothing: set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Retrying will not help.',
  },
  async run({ app_id, skip = 0 }, ctx) {
    const shares = await ctx.api.listGroupShares(app_id, { signal: ctx.signal });
    return describeShares(ctx, app_id, shares, skip);
  },
});

function describeShares(ctx: ToolContext, app: string, shares: GroupShare[], skip: number): ToolResult {
  const candidates = shares.slice(skip, skip + MAX_ROWS).map((share) => {
    const row = {
      share_id: sanitize(share.id, 200),
      group_id: sanitize(share.group_id ?? '', 200),
      group_name: sanitize(share.group_name ?? '', 100),
      role: sanitize(share.role ?? '', 100),
      created_date: sanitize(share.created_date ?? '', 40),
    };
    const group = `group ${row.group_id ? idText(row.group_id) : '?'}${row.group_name ? ` (${quote(row.group_name, 100)})` : ''}`;
    const since = row.created_date ? `, since ${row.created_date.slice(0, 10)}` : '';
    return { row, line: `- share ${idText(share.id)}: ${group}, ${roleText(share.role)}${since}` };
  });
  const fitted = fitBudget(candidates, ROWS_TOKENS, (candidate) => approxTokens(candidate.line));
  const shown: Row[] = fitted.map((candidate) => candidate.row);
  const lines = fitted.map((candidate) => candidate.line);
  if (shares.length === 0) {
    return {
      text: `App ${idText(app)} is not shared with any workspace group.`,
      next: aside(ctx, 'share_app_with_groups', { app_id: app }, (call) => `To share it, call ${call} with group_ids.`) || 'Nothing more is needed: it is shared with no group.',
      structured: { shares: [], total: 0 },
    };
  }
  const nextSkip = skip + shown.length < shares.length ? skip + shown.length : undefined;
  const part = skip > 0 ? `; ${skip + 1} to ${skip + shown.length} shown` : nextSkip !== undefined ? `; the first ${shown.length} shown` : '';
  const head = `App ${idText(app)} is shared with ${plural(shares.length, 'group')}${part}:`;
  const rest = nextSkip === undefined ? '' : nextCall(ctx.config, 'list_group_shares', { app_id: app, skip: nextSkip });
  const tail = rest ? [`${plural(shares.length - nextSkip!, 'more share')} follow: ${rest}.`] : [];
  const note = "A member's app role is the highest of their direct role and the roles of all their shared groups.";
  const first = shown[0]?.share_id;
  const actions = first
    ? [
        aside(ctx, 'update_group_share', { app_id: app, share_id: first }, (call) => `to change a group's role call ${call} with role (omit for user)`),
        aside(ctx, 'remove_group_share', {}, (call) => `to unshare, call ${call} with the share_id`),
      ].filter(Boolean)
    : [];
  const said = first ? actions.join('; ') || 'nothing more is needed: the shares are listed above' : `None after the first ${skip}: call again with a smaller skip`;
  const change = capitalized(said);
  return {
    text: [head, ...lines, ...tail, note].join('\n'),
    next: `${change}${rest ? `; the other shares: ${rest}` : ''}.`,
    structured: { shares: shown, total: shares.length, ...(nextSkip !== undefined ? { next_skip: nextSkip } : {}) },
  };
}
