// What the campaigns view reads from a tool result: the rows of list_ad_campaigns as the server sent
// them, each status in the server's own words (from the result's view data), the rows whose metrics
// are still pending, and the small readers and formatters the list, the chart and the card share.
// Everything here is untrusted data: read defensively, never parsed as HTML.
import { factsOf, viewOf, type ToolResultLike } from '../shared/app.js';

export interface Row {
  campaign_id: string;
  name: string;
  type: string;
  status: string;
  daily_budget?: number;
  start_date?: string;
  cost?: number;
  conversions?: number;
}

export interface StatusWords {
  status: string;
  shown: string;
  meaning?: string;
}

/** One page of list_ad_campaigns, or several pages joined as the person asks for more. */
export interface List {
  appId: string;
  metrics: boolean;
  rows: Row[];
  statuses: Map<string, StatusWords>;
  pending: Set<string>;
  facts: Record<string, unknown>;
}

export const str = (value: unknown): string => (typeof value === 'string' ? value : '');
/** Average days per month, as the server's texts estimate a month (src/tools/format.ts DAYS_PER_MONTH). */
const DAYS_PER_MONTH = 30.4;
/** A daily amount as a rough monthly one, to the cent. */
export const monthly = (daily: number): number => Math.round(daily * DAYS_PER_MONTH * 100) / 100;

export const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

function rowsOf(facts: Record<string, unknown>): Row[] {
  return Array.isArray(facts.campaigns) ? (facts.campaigns as Row[]) : [];
}

function statusesOf(shown: Record<string, unknown>): StatusWords[] {
  return Array.isArray(shown.statuses) ? (shown.statuses as StatusWords[]).filter((words) => typeof words?.status === 'string') : [];
}

export function listOf(result: ToolResultLike, appId: string): List {
  const facts = factsOf(result);
  const shown = viewOf(result);
  const pending = Array.isArray(shown.metrics_pending) ? shown.metrics_pending.map(String) : [];
  return {
    appId,
    metrics: facts.metrics_included === true,
    rows: rowsOf(facts),
    statuses: new Map(statusesOf(shown).map((words) => [words.status, words])),
    pending: new Set(pending),
    facts,
  };
}
