import type { z } from 'zod';
import { closest as nearest, distance } from '../config.js';
import { AppError } from '../errors.js';
import { sanitize } from '../text.js';
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
  const problems = parsed.error.issues.flatMap((issue) => problemsOf(issue, known, args, offered));
  const shown = problems.slice(0, MAX_PROBLEMS);
  const more = problems.length - shown.length;
  throw new ArgumentsError(
    [`Invalid arguments for ${tool}; nothing was sent.`, ...shown.map((problem) => `- ${problem}`), ...(more > 0 ? [`- and ${more} more`] : [])].join('\n'),
  );
}

function problemsOf(issue: z.core.$ZodIssue, known: string[], args: unknown, offered: Pick<Offered, 'has'> | undefined): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const name = sanitize(key, 60);
      const meant = closest(key, known);
      return `${name}: not an argument of this tool${meant ? ` (did you mean ${meant}?)` : ''}; its arguments are ${known.join(', ')}.`;
    });
  }
  const path = issue.path.map(String);
  const field = path.length ? path.join('.') : 'arguments';
  const top = path[0];
  const missing = top !== undefined && path.length === 1 && !(typeof args === 'object' && args !== null && top in args);
  if (missing) {
    const source = SOURCES[top] && (!offered || offeredOnly(SOURCES[top], offered) ? SOURCES[top] : ASK_THE_USER);
    return [`${field}: required${source ? `; ${source}` : ''}.`];
  }
  return [`${field}: ${sanitize(issue.message, 200)}.`];
}

/** The known name a typo most likely meant: one contains the other, or the nearest within two edits. */
function closest(name: string, known: string[]): string | undefined {
  const lower = name.toLowerCase();
  const contained = known.find((candidate) => candidate.includes(lower) || lower.includes(candidate));
  if (contained || known.length === 0) return contained;
  const best = nearest(lower, known);
  return distance(lower, best) <= MAX_EDITS ? best : undefined;
}
