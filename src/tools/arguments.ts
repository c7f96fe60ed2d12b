import type { z } from 'zod';
import { closest as nearest } from '../config.js';
import { AppError } from '../errors.js';
import { limit, sanitize } from '../text.js';
import type { Offered } from './define.js';
import { offeredOnly } from './offer.js';

/**
 * A tool's arguments checked against its input schema, with a message a model can act on: every
 * problem at once, each naming the field and the rule, where a missing value comes from (which tool
 * lists it), and the argument meant by a misspelled one. The SDK's own check answers with zod's raw
 * issue list instead, so the server registers tools with a permissive schema and checks here.
 */

/**
 * Where each argument's value comes from, for a model that does not have it yet. A source that names
 * a tool the caller is not offered gives way to asking the user.
 */
const SOURCES: Record<string, string> = {
  app_id: "ask the user (no operation lists apps; with --sandbox, check_connection lists the simulated ones)",
  campaign_id: 'list_ad_campaigns lists them (the service\'s id, not the adnet one)',
  template_id: 'list_email_templates lists them',
  share_id: 'list_group_shares lists them',
  job_id: 'start_scheduling_posts returns it',
  insight_id: 'list_campaign_suggestions lists them (the suggestion id)',
  recommendation_resource_name: 'list_campaign_suggestions shows it on a CAMPAIGN_BUDGET suggestion',
  recommended_daily_budget_micros: 'list_campaign_suggestions shows it on a CAMPAIGN_BUDGET suggestion',
  group_ids: "ask the user: group ids come from the workspace's group settings",
  workspace_id: 'ask the user: it is in the workspace settings (with --sandbox, check_connection shows it)',
};
const ASK_THE_USER = 'ask the user';

/** A misspelling this many edits or fewer from a known argument is named as that argument. */
const MAX_EDITS = 2;
/** Problems listed per call; more than this means the call is not close to right. */
const MAX_PROBLEMS = 8;
/**
 * An unknown argument name is cut to this before anything compares or shows it: argument names are
 * short identifiers, and a request may send a megabyte name before its credentials are checked.
 */
const MAX_NAME_CHARS = 64;
/** Unknown names that get a did-you-mean; the ones after them are only named, and those past MAX_PROBLEMS counted. */
const MAX_SUGGESTED = 3;

export class ArgumentsError extends AppError {
  override name = 'ArgumentsError';
}

/**
 * The parsed arguments (defaults applied).
 * @throws ArgumentsError naming every field that fails, and nothing is sent.
 */
export function checkArguments(tool: string, schema: z.ZodObject, args: unknown, offered?: Pick<Offered, 'has'>): Record<string, unknown> {
  const parsed = schema.safeParse(args ?? {});
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const known = Object.keys(schema.shape);
  // Only the problems shown are written out; the rest are counted (a request may hold 60,000 unknown names).
  const shown: string[] = [];
  let total = 0;
  let suggested = 0;
  for (const issue of parsed.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      total += issue.keys.length;
      for (const key of issue.keys.slice(0, Math.max(0, MAX_PROBLEMS - shown.length))) {
        shown.push(unknownName(limit(key, MAX_NAME_CHARS), known, suggested++ < MAX_SUGGESTED));
      }
      continue;
    }
    total += 1;
    if (shown.length < MAX_PROBLEMS) shown.push(problemOf(issue, args, offered));
  }
  const more = total - shown.length;
  throw new ArgumentsError(
    [`Invalid arguments for ${tool}; nothing was sent.`, ...shown.map((problem) => `- ${problem}`), ...(more > 0 ? [`- and ${more} more`] : [])].join('\n'),
  );
}

/** An argument the tool does not take (its name already cut to MAX_NAME_CHARS), with the one it likely meant when `suggest`. */
function unknownName(key: string, known: string[], suggest: boolean): string {
  const meant = suggest ? closest(key, known) : undefined;
  return `${sanitize(key, 60)}: not an argument of this tool${meant ? ` (did you mean ${meant}?)` : ''}; its arguments are ${known.join(', ')}.`;
}

function problemOf(issue: z.core.$ZodIssue, args: unknown, offered: Pick<Offered, 'has'> | undefined): string {
  const path = issue.path.map(String);
  const field = path.length ? path.map((part) => limit(part, MAX_NAME_CHARS)).join('.') : 'arguments';
  const top = path[0];
  const missing = top !== undefined && path.length === 1 && !(typeof args === 'object' && args !== null && top in args);
  if (missing) {
    const source = SOURCES[top] && (!offered || offeredOnly(SOURCES[top], offered) ? SOURCES[top] : ASK_THE_USER);
    return `${sanitize(field, 200)}: required${source ? `; ${source}` : ''}.`;
  }
  return `${sanitize(field, 200)}: ${sanitize(limit(issue.message, 1_000), 200)}.`;
}

/** The known name a typo most likely meant: one contains the other, or the nearest within two edits. `name` is short (MAX_NAME_CHARS). */
function closest(name: string, known: string[]): string | undefined {
  const lower = name.toLowerCase();
  return known.find((candidate) => candidate.includes(lower) || lower.includes(candidate)) ?? nearest(lower, known, MAX_EDITS);
}
