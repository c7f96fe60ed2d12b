import { z } from 'zod';
import type { Analytics } from '../../api/schemas.js';
import { InputError } from '../../errors.js';
import { quote, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { id } from '../fields.js';
import { plural } from '../format.js';

/** Where an answer may say which days its figures cover: a `period` object, or bounds at the top level. */
const BOUNDS: Array<[string, string]> = [
  ['from', 'to'],
  ['start_date', 'end_date'],
  ['period_start', 'period_end'],
  ['start', 'end'],
];
const KNOWN = ['summary', 'credit_pool', 'member_allocations', 'workspace_id', 'generated_at', 'period', ...BOUNDS.flat()];
// Deprecated by the service and always zero (service-facts): never shown.
const DEPRECATED = new Set(['seats', 'by_seat_type']);
const MAX_FIGURES = 24;
/** Unknown top-level keys read; their figures then share MAX_FIGURES. */
const MAX_OTHER_KEYS = 20;
/** What people ask analytics for and the service's answer never holds (issue 29). */
const NOT_REPORTED = 'The service reports no app visitors, opens or sessions: these are builder usage, credits and members.';
const TOP_MEMBERS = 5;
const LABEL_KEYS = ['email', 'name', 'display_name', 'user_email', 'user_id', 'member_id', 'id'];

type Figure = number | string | boolean;
type Figures = Record<string, Figure>;
interface Member {
  member: string;
  figures: Record<string, number>;
}
interface Members {
  count: number;
  /** The first few, by the usage figure when there is one. */
  top: Member[];
  rankedBy?: string;
}
type Facts = {
  workspace_id: string;
  summary: Figures;
  credit_pool: Figures;
  member_allocations_count: number;
  other: Figures;
};

// Keys vary by plan and version, so figures are key/value rows (a closed shape every client accepts);
// the value is shown as the text reads it: a number, a short string, or true/false.
// Checked here, not as a JSON-schema pattern (the description says YYYY-MM-DD): a pattern costs tokens on every tools/list.
const day = z
  .string()
  .refine((value) => /^\d{4}-\d{2}-\d{2}$/.test(value), 'must be a date as YYYY-MM-DD')
  .refine((value) => !Number.isNaN(Date.parse(`${value}T00:00:00Z`)) && new Date(`${value}T00:00:00Z`).toISOString().startsWith(value), 'must be a real date');
const figures = z.array(z.strictObject({ key: z.string(), value: z.string() }));
const rows = (values: Figures) => Object.entries(values).map(([key, value]) => ({ key, value: typeof value === 'number' ? round(value) : String(value) }));

export const getWorkspaceAnalytics = defineTool({
  name: 'get_workspace_analytics',
  title: 'Get Workspace Analytics',
  description:
    "Key figures of a workspace's monitoring analytics: summary, credit pool, member allocations. No app visitor or open counts. Workspace admins and owners only (Enterprise). Read-only.",
  input: {
    workspace_id: id('From the user.'),
    from: day.optional().describe('First day, YYYY-MM-DD (default: start of the billing period).'),
    to: day.optional().describe('Last day, YYYY-MM-DD.'),
  },
  output: {
    workspace_id: z.string(),
    as_of: z.string().optional(),
    period: z.string().describe('The days the figures cover, and who says so.'),
    summary: figures.describe('Nested keys as a.b (also in credit_pool).'),
    credit_pool: figures,
    member_allocations_count: z.number(),
    other: figures.describe('Figures under the answer\'s other keys, as key.a.b.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: "Refused: only the workspace's admins and owners may read analytics, so a regular member's key gets 401, as does a missing or invalid key. Set APPMGMT_MONITORING_API_KEY to an admin's or owner's API key.",
    404: "Workspace not found, or not visible to this key. Check workspace_id.",
    429: 'Rate limited by the monitoring API.',
  },
  async run({ workspace_id, from, to }, { api, signal }) {
    if (from && to && from > to) throw new InputError('from', `must not be after to (${to})`);
    const answer = await api.getWorkspaceAnalytics(workspace_id, { ...(from ? { from } : {}), ...(to ? { to } : {}) }, { signal });
    const members = membersOf(answer.member_allocations);
    const summary = flatten(answer.summary);
    const creditPool = flatten(answer.credit_pool);
    const other = otherFigures(answer);
    const facts: Facts = {
      workspace_id,
      summary: cap(summary),
      credit_pool: cap(creditPool),
      member_allocations_count: members.count,
      other: cap(other),
    };
    const hidden = {
      summary: Object.keys(summary).length - Object.keys(facts.summary).length,
      credit_pool: Object.keys(creditPool).length - Object.keys(facts.credit_pool).length,
      other: Object.keys(other).length - Object.keys(facts.other).length,
    };
    const asOf = typeof answer.generated_at === 'string' ? sanitize(answer.generated_at, 40) : undefined;
    const period = periodOf(answer, from, to);
    return {
      text: describe(facts, members, hidden, asOf, period),
      // Issue 29: the figures cannot say whether they answer the question asked, so the step does not claim it.
      next: 'Answer from these figures; anything else is not available from the service.',
      structured: { ...facts, ...(asOf ? { as_of: asOf } : {}), period, summary: rows(facts.summary), credit_pool: rows(facts.credit_pool), other: rows(facts.other) },
    };
  },
});

/**
 * The period the figures cover: the one the service reports, else the one asked for (which the
 * service may not have applied: it did not say), else that the service does not say.
 */
function periodOf(answer: Analytics, from: string | undefined, to: string | undefined): string {
  const reported = isRecord(answer.period) ? answer.period : answer;
  for (const [start, end] of BOUNDS) {
    const first = reported[start];
    const last = reported[end];
    if (typeof first === 'string' || typeof last === 'string') {
      return `${typeof first === 'string' ? sanitize(first, 30) : 'not stated'} to ${typeof last === 'string' ? sanitize(last, 30) : 'not stated'} (as the service reports)`;
    }
  }
  if (from || to) return `${from ?? 'start of the billing period'} to ${to ?? 'today'} (as asked; the service did not confirm it)`;
  return 'not stated by the service';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Numbers, short strings and flags of one section, nested objects one level deep as `a.b`. */
function flatten(section: unknown, prefix = '', out: Figures = {}): Figures {
  if (!isRecord(section)) return out;
  for (const [rawKey, value] of Object.entries(section)) {
    if (DEPRECATED.has(rawKey)) continue;
    const key = prefix + sanitize(rawKey, 60);
    if (typeof value === 'number' && Number.isFinite(value)) out[key] = value;
    else if (typeof value === 'boolean') out[key] = value;
    else if (typeof value === 'string') out[key] = sanitize(value, 60);
    else if (Array.isArray(value)) out[`${key}.count`] = value.length;
    else if (isRecord(value) && !prefix) flatten(value, `${key}.`, out);
  }
  return out;
}

function cap(values: Figures): Figures {
  return Object.fromEntries(Object.entries(values).slice(0, MAX_FIGURES));
}

/** member_allocations (a list, or an object keyed by member): the count and the top few by usage. */
function membersOf(allocations: unknown): Members {
  const rows: Array<[string | undefined, unknown]> = Array.isArray(allocations)
    ? allocations.map((item) => [undefined, item])
    : isRecord(allocations)
      ? Object.entries(allocations)
      : [];
  const members = rows.filter((row): row is [string | undefined, Record<string, unknown>] => isRecord(row[1]));
  const usage = usageKey(members.map(([, item]) => item));
  const ranked = usage
    ? [...members].sort(([, a], [, b]) => numberOr0(b[usage]) - numberOr0(a[usage]))
    : members;
  const top = ranked.slice(0, TOP_MEMBERS).map(([key, item], index) => ({
    member: sanitize(String(LABEL_KEYS.map((name) => item[name]).find((value) => typeof value === 'string' && value) ?? key ?? `#${index + 1}`), 80),
    figures: numbersOf(item),
  }));
  return { count: rows.length, top, ...(usage ? { rankedBy: sanitize(usage, 40) } : {}) };
}

const numberOr0 = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

function usageKey(items: Record<string, unknown>[]): string | undefined {
  const keys = items.flatMap((item) => Object.keys(item).filter((key) => typeof item[key] === 'number'));
  return keys.find((key) => /used|usage|consum|spent/i.test(key));
}

function numbersOf(item: Record<string, unknown>): Record<string, number> {
  const entries = Object.entries(item).filter(
    (entry): entry is [string, number] => typeof entry[1] === 'number' && Number.isFinite(entry[1]) && !DEPRECATED.has(entry[0]),
  );
  return Object.fromEntries(entries.slice(0, 4).map(([key, value]) => [sanitize(key, 40), value]));
}

/**
 * The figures under the answer's keys this summary does not know (the answer may grow, service
 * facts), as key.a.b: every key named is shown (issue 29), so no model goes after data no call shows.
 */
function otherFigures(answer: Analytics): Figures {
  const out: Figures = {};
  const keys = Object.keys(answer).filter((key) => !KNOWN.includes(key) && !DEPRECATED.has(key)).slice(0, MAX_OTHER_KEYS);
  for (const key of keys) {
    const value = answer[key];
    const name = sanitize(key, 60);
    if (isRecord(value)) for (const [inner, figure] of Object.entries(flatten(value))) out[`${name}.${inner}`] = figure;
    else flatten({ [key]: value }, '', out);
  }
  return out;
}

function describe(facts: Facts, { top, rankedBy }: Members, hidden: { summary: number; credit_pool: number; other: number }, asOf: string | undefined, period: string): string {
  const lines = [
    `Analytics for workspace ${facts.workspace_id}${asOf ? ` as of ${asOf}` : ''}:`,
    `Period: ${period}.`,
    `Summary: ${show(facts.summary, hidden.summary)}`,
    `Credit pool: ${show(facts.credit_pool, hidden.credit_pool)}`,
    `Member allocations: ${plural(facts.member_allocations_count, 'member')}${top.length ? `; ${rankedBy ? `top ${top.length} by ${rankedBy}` : `first ${top.length}`}:` : '.'}`,
    ...top.map(({ member, figures }) => `- ${quote(member, 80)}: ${show(figures)}`),
  ];
  const over = Object.keys(facts.credit_pool).filter((key) => /over/i.test(key) && facts.credit_pool[key] === true);
  if (over.length > 0) lines.splice(4, 0, `Over a limit: ${over.join(', ')}.`);
  // Every key named is shown (issue 29): a key named as "not shown" sent a model after data no call shows.
  if (Object.keys(facts.other).length > 0) lines.push(`Also in the answer: ${show(facts.other, hidden.other)}`);
  lines.push(NOT_REPORTED);
  return lines.join('\n');
}

function show(values: Figures, hidden = 0): string {
  const entries = Object.entries(values);
  if (entries.length === 0) return 'not in the answer.';
  const shown = entries
    .map(([key, value]) => `${key} ${typeof value === 'string' ? quote(value, 60) : typeof value === 'number' ? round(value) : value}`)
    .join(', ');
  return hidden > 0 ? `${shown} (${hidden} more not shown)` : shown;
}

function round(value: number): string {
  return Number.isInteger(value) ? String(value) : String(Number(value.toFixed(2)));
}
