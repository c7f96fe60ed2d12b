import { z } from 'zod';
import type { GroupShareResult } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool, type ToolResult } from '../define.js';
import { appId, text } from '../fields.js';
import { aside, nextCall, type Steps } from '../format.js';

const ALREADY_SHARED = 'already_shared';
/** Group ids one request may carry (spec). */
const MAX_GROUPS = 50;
/** A group id the workspace does not have: the service's code, or its words. */
const NOT_FOUND = /not[ _-]?found|no such group/i;

export const shareAppWithGroups = defineTool({
  name: 'share_app_with_groups',
  title: 'Share App with Groups',
  description:
    "Share the app with workspace groups: members get the role (now or at next sign-in) and one invitation email. Each group succeeds or fails on its own; repeating is harmless.",
  input: {
    app_id: appId,
    // Bounds checked here, out of the schema like string bounds (fields.ts); the description says them.
    group_ids: z
      .array(text(200))
      .refine((ids) => ids.length >= 1 && ids.length <= MAX_GROUPS, `must hold 1 to ${MAX_GROUPS} group ids`)
      .describe('1-50 workspace group IDs, from the user.'),
    role: text(100)
      .optional()
      .describe('For every group: user (the default) or admin; an app may define others (a refused role\'s error names them).'),
  },
  output: {
    shared: z.array(z.string()).describe('Group ids newly shared.'),
    already_shared: z.array(z.string()).describe('Unchanged: they keep their current role.'),
    failed: z.array(z.strictObject({ group_id: z.string(), reason: z.string() })),
    share_ids: z.array(z.strictObject({ group_id: z.string(), share_id: z.string() })).describe('For update_group_share and remove_group_share, when given.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    402: 'The workspace plan does not include workspace groups; sharing with groups needs a plan that does.',
    403: 'Not allowed: sharing needs editor access to the app, an editor or admin role in the workspace, and a plan with workspace groups.',
    404: "App not found, or not in the token's workspace. Check app_id.",
    422: "The role is not one of this app's roles; no group was shared. The service's answer below names the roles it accepts; omit role for the default (user).",
    429: 'Rate limit: 30 group-share requests per minute, shared by all personal tokens of the workspace.',
  },
  async run({ app_id, group_ids, role }, ctx) {
    const { api, signal } = ctx;
    const unique = [...new Set(group_ids)];
    // Omitting role (rather than sending null) leaves the default role to the service.
    const body = role === undefined ? { group_ids: unique } : { group_ids: unique, role };
    const answer = await api.shareAppWithGroups(app_id, body, { signal });
    return describeShares(ctx, app_id, unique, role, answer);
  },
});

type Outcome = 'shared' | 'already' | 'failed';

function describeShares(ctx: Steps, app: string, sent: string[], role: string | undefined, answer: GroupShareResult): ToolResult {
  const counts: Record<Outcome, number> = { shared: 0, already: 0, failed: 0 };
  const notFound: string[] = [];
  const facts = {
    shared: [] as string[],
    already_shared: [] as string[],
    failed: [] as Array<{ group_id: string; reason: string }>,
    share_ids: [] as Array<{ group_id: string; share_id: string }>,
  };
  const lines = answer.results.map((result) => {
    const code = result.reason ?? result.error;
    const outcome: Outcome = result.success ? 'shared' : code === ALREADY_SHARED ? 'already' : 'failed';
    // Both when both are given: the code says what kind of failure, the words may say more.
    const reason = result.reason && result.error && result.reason !== result.error ? `${result.reason}: ${result.error}` : code;
    counts[outcome] += 1;
    const group = idText(result.group_id);
    const groupId = sanitize(result.group_id, 200);
    if (outcome === 'shared') {
      facts.shared.push(groupId);
      // The documentation shows no share id in the results; the sandbox and perhaps the service give one.
      const shareId = typeof result.share_id === 'string' && result.share_id ? result.share_id : undefined;
      if (!shareId) return `- ${group}: shared`;
      facts.share_ids.push({ group_id: groupId, share_id: sanitize(shareId, 200) });
      return `- ${group}: shared (share_id ${idText(shareId)})`;
    }
    if (outcome === 'already') {
      facts.already_shared.push(groupId);
      return `- ${group}: already shared, nothing changed`;
    }
    facts.failed.push({ group_id: groupId, reason: sanitize(reason ?? 'no reason given', 150) });
    if (reason && NOT_FOUND.test(reason)) notFound.push(group);
    return `- ${group}: FAILED: ${reason ? quote(reason, 150) : 'no reason given'}`;
  });
  const answered = new Set(answer.results.map((result) => result.group_id));
  const missing = sent.filter((group) => !answered.has(group));
  lines.push(...missing.map((group) => `- ${idText(group)}: no result returned; check the app's group shares`));
  facts.failed.push(...missing.map((group) => ({ group_id: sanitize(group, 200), reason: 'no result returned' })));

  const failed = counts.failed + missing.length;
  const roleText = role === undefined ? 'default role user' : `role ${quote(role, 100)}`;
  const lead = counts.shared === 0 && failed > 0 ? `No group was newly shared with app ${app}` : `Group shares for app ${app}`;
  const head = `${lead} (${roleText}): ${counts.shared} shared, ${counts.already} already shared, ${failed} failed.`;
  const tail: string[] = [];
  if (counts.shared > 0) tail.push('Members of shared groups get access now or at their next sign-in, and one invitation email per app.');
  if (counts.already > 0) {
    tail.push(`${counts.shared === 0 && failed === 0 ? 'Nothing changed. ' : ''}Already-shared groups keep their current role.`);
  }
  const shared = aside(ctx, 'list_group_shares', { app_id: app }, (call) => `; ${call} shows those already shared`);
  const change =
    ctx.offered.has('update_group_share') && ctx.offered.has('list_group_shares')
      ? `To change an already-shared group's role, call ${nextCall(ctx.config, 'list_group_shares', { app_id: app })} for its share_id, then update_group_share.`
      : `Already-shared groups keep their role. Changing it: ${ctx.offered.missing(ctx.offered.has('update_group_share') ? 'list_group_shares' : 'update_group_share')}`;
  const next =
    notFound.length > 0
      ? `No group ${notFound.join(', ')} in the app's workspace. Group ids come from the workspace's group settings in the service (no tool lists workspace groups${shared}). Ask the user for the right id, then call share_app_with_groups again with it.`
      : failed > 0
        ? 'Failed groups were not shared: fix the cause, then call share_app_with_groups again with those IDs (repeating already-shared groups is harmless).'
        : counts.already > 0
          ? change
          : 'Nothing more is needed.';
  return {
    text: [head, ...lines, ...tail].join('\n'),
    next,
    structured: facts,
    isError: counts.shared === 0 && failed > 0,
  };
}
