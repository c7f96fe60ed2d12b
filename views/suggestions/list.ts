// The suggestions view's data: one list_campaign_suggestions result read into a page of rows by
// severity (each row's facts from structuredContent, its title and description from the view data),
// and the List the page keeps of what it shows, which paging and the row actions both update.
import { factsOf, viewOf, type ToolResultLike, type View } from '../shared/app.js';

export const SEVERITIES = ['high', 'medium', 'low', 'other'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const LABELS: Record<Severity, string> = { high: 'High', medium: 'Medium', low: 'Low', other: 'Other' };

/** One suggestion's facts (the tool's structuredContent row). */
export interface Fact {
  id: string;
  action?: string;
  campaign_ids?: string[];
  daily_budget?: number;
  source?: string;
  recommendation_type?: string;
  recommendation_resource_name?: string;
  recommended_daily_budget_micros?: number;
}

/** What the tool sent for the view alone, per row. */
export interface Prose {
  title: string;
  description: string;
  dismissable: boolean;
}

export interface Page {
  campaignId: string;
  count: number;
  adnetIncluded: boolean;
  rows: Array<{ severity: Severity; fact: Fact; prose?: Prose }>;
  nextSkip?: number;
}

/** The list on screen, and what paging needs to reach the rest of it. */
export interface List {
  view: View;
  appId: unknown;
  campaignId: string;
  groups: Record<Severity, HTMLElement>;
  ids: Set<string>;
  /** Dismissed or applied from here since the last page was asked for: each moves the rows after it up by one. */
  removed: number;
  /** Dismissals and approvals still unanswered: the next page starts that many earlier, as they may be gone by then. */
  pending: number;
  summary: HTMLElement;
  footer: HTMLElement;
}

export function pageOf(result: ToolResultLike): Page {
  const facts = factsOf(result);
  const prose = new Map<string, Prose>();
  const shown = viewOf(result).suggestions;
  for (const row of Array.isArray(shown) ? (shown as Array<Prose & { id: string }>) : []) prose.set(String(row.id), row);
  const rows = SEVERITIES.flatMap((severity) =>
    (Array.isArray(facts[severity]) ? (facts[severity] as Fact[]) : []).map((fact) => ({ severity, fact, prose: prose.get(fact.id) })),
  );
  return {
    campaignId: String(facts.campaign_id ?? ''),
    count: typeof facts.count === 'number' ? facts.count : rows.length,
    adnetIncluded: facts.adnet_included === true,
    rows,
    ...(typeof facts.next_skip === 'number' ? { nextSkip: facts.next_skip } : {}),
  };
}
