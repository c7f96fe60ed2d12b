import { z } from 'zod';
import type { Suggestion } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { defineTool } from '../define.js';
import { appId, id, whole } from '../fields.js';
import { approxTokens, aside, fitBudget, money, nextCall, plural, type Steps } from '../format.js';
import { applyFacts, applyLine, suggestionsNext } from './budget-recommendation.js';

const SEVERITY_ORDER = ['high', 'medium', 'low'];
/** Issue 29: an action such as the service's own edit_budget has no operation; nothing may suggest a tool does it. */
const MANUAL = 'These actions are done in the service; no tool here does them.';
const MANUAL_BESIDE_APPLY = 'Actions without "to apply" are done in the service; no tool here does them.';
// Bounds that keep one result under 2,000 tokens (issue 5): at most 30 rows and an estimated
// token budget for them, titles of 80 characters, a description excerpt only on the most severe few.
const MAX_SHOWN = 30;
/** Estimated tokens (approxTokens) for all rows, text line and facts together. */
const ROWS_BUDGET = 1_600;
const TITLE_MAX = 80;
const DESCRIBED = 3;
const DESCRIPTION_MAX = 80;
/** Far beyond any campaign's suggestions; only bounds the input. */
const MAX_SKIP = 10_000;
// The view (issue 20) shows what the facts leave out, for the rows this page shows: a title fits a line,
// a description a short paragraph; the model never sees either through it (the view data is in _meta).
const VIEW_TITLE_MAX = 160;
const VIEW_DESCRIPTION_MAX = 600;
/** dismiss_campaign_suggestion accepts 1-200 characters (service facts). */
const MAX_INSIGHT_ID = 200;

// No title or description: untrusted prose stays in the text, scripts get what they act on.
const SuggestionFacts = z.object({
  id: z.string(),
  action: z.string().optional(),
  campaign_ids: z.array(z.string()).optional().describe('Only when not just campaign_id.'),
  daily_budget: z.number().optional().describe('Proposed daily budget, currency units.'),
  source: z.string().optional(),
  recommendation_type: z.string().optional(),
  recommendation_resource_name: z.string().optional().describe('CAMPAIGN_BUDGET: for apply_budget_recommendation.'),
  recommended_daily_budget_micros: z.number().optional().describe('CAMPAIGN_BUDGET: for apply_budget_recommendation.'),
});
type Facts = z.infer<typeof SuggestionFacts>;

export const listCampaignSuggestions = defineTool({
  name: 'list_campaign_suggestions',
  title: 'List Campaign Suggestions',
  description:
    "A campaign's suggestions, most severe first: the service's own (last 14 days) and the ad platform's (source adnet; silently missing when it is unreachable). Read-only.",
  input: {
    app_id: appId,
    campaign_id: id('From list_ad_campaigns (not the adnet id).'),
    skip: whole(0, MAX_SKIP).optional().describe('Rows to skip.'),
  },
  // source is absent on the service's own suggestions, as in the API.
  output: {
    campaign_id: z.string(),
    count: z.number(),
    adnet_included: z.boolean(),
    high: z.array(SuggestionFacts),
    medium: z.array(SuggestionFacts),
    low: z.array(SuggestionFacts),
    other: z.array(SuggestionFacts).optional(),
    next_skip: z.number().optional().describe('skip value for the rows not shown.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The access token is missing, invalid or expired. Set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: 'Not allowed: the token needs access to this app (workspace API keys are refused by ad endpoints).',
    404: "App or campaign not found. campaign_id must be the service's campaign id, not the adnet campaign ID.",
    429: 'Rate limited by the service.',
  },
  async run({ app_id, campaign_id, skip = 0 }, ctx) {
    const { api, config, signal } = ctx;
    const all = await api.listCampaignSuggestions(app_id, campaign_id, { signal });
    const sorted = all
      .map((suggestion, index) => ({ suggestion, index }))
      .sort((a, b) => rank(a.suggestion) - rank(b.suggestion) || a.index - b.index)
      .map(({ suggestion }) => suggestion);
    const rows = fit(sorted.slice(skip), campaign_id, skip);
    const rest = Math.max(0, sorted.length - skip - rows.length);
    const page: Page = { skip, shown: rows.length, rest, more: nextCall(config, 'list_campaign_suggestions', { app_id, campaign_id, skip: skip + rows.length }) };
    const adnetIncluded = sorted.some((suggestion) => suggestion.source === 'adnet');
    const grouped: Record<string, Facts[]> = { high: [], medium: [], low: [] };
    for (const { severity, fact } of rows) (grouped[SEVERITY_ORDER.includes(severity) ? severity : 'other'] ??= []).push(fact);
    // The campaign's own state matters only when a suggestion would spend more on it.
    const spends = rows.some(({ fact }) => fact.recommendation_resource_name && fact.action);
    const campaign = spends ? await api.getAdCampaign(app_id, campaign_id, { signal }).catch(() => undefined) : undefined;
    const next = suggestionsNext(ctx, app_id, campaign_id, rows.map(({ fact }) => fact), campaign?.status);
    return {
      text: describe(ctx, campaign_id, sorted, rows, adnetIncluded, page),
      next: rest > 0 ? `${next} The other ${plural(rest, 'suggestion')}: ${page.more}.` : next,
      structured: { campaign_id, count: sorted.length, adnet_included: adnetIncluded, ...grouped, ...(rest > 0 ? { next_skip: skip + rows.length } : {}) },
      view: { suggestions: rows.map(viewRow) },
    };
  },
});

function rank(suggestion: Suggestion): number {
  const index = SEVERITY_ORDER.indexOf(suggestion.severity.toLowerCase());
  return index === -1 ? SEVERITY_ORDER.length : index;
}

/** Which part of the sorted list a result shows, and the call that shows the part after it. */
interface Page {
  skip: number;
  shown: number;
  rest: number;
  more: string;
}

interface Row {
  severity: string;
  fact: Facts;
  text: string;
  suggestion: Suggestion;
}

/**
 * A shown row's title and description for the view, keyed by its facts' id. `dismissable`: that id is
 * the suggestion's own, unchanged by sanitizing and within what dismiss_campaign_suggestion accepts.
 */
function viewRow({ fact, suggestion }: Row) {
  return {
    id: fact.id,
    title: sanitize(suggestion.title, VIEW_TITLE_MAX),
    description: sanitize(suggestion.description ?? '', VIEW_DESCRIPTION_MAX),
    dismissable: fact.id === suggestion.id && fact.id.length > 0 && fact.id.length <= MAX_INSIGHT_ID,
  };
}

/** The most severe suggestions that fit the row limits, each as its facts and its text line. */
function fit(sorted: Suggestion[], campaign: string, skip: number): Row[] {
  const rows = sorted.slice(0, MAX_SHOWN).map((suggestion, index): Row => {
    const fact = toFacts(suggestion, campaign);
    return { severity: sanitize(suggestion.severity, 20).toLowerCase(), fact, text: line(fact, suggestion, skip + index < DESCRIBED), suggestion };
  });
  return fitBudget(rows, ROWS_BUDGET, (row) => approxTokens(row.text) + approxTokens(JSON.stringify(row.fact)));
}

function toFacts(suggestion: Suggestion, campaign: string): Facts {
  const budget = budgetMicros(suggestion);
  const campaigns = suggestion.action_payload?.campaign_ids ?? [];
  const onlyThis = campaigns.length === 1 && campaigns[0] === campaign;
  return {
    id: sanitize(suggestion.id, 100),
    ...(suggestion.action ? { action: sanitize(suggestion.action, 40) } : {}),
    ...(campaigns.length > 0 && !onlyThis ? { campaign_ids: campaigns.map((c) => sanitize(c, 100)) } : {}),
    ...(budget !== undefined ? { daily_budget: budget / 1_000_000 } : {}),
    ...(suggestion.source ? { source: sanitize(suggestion.source, 20) } : {}),
    ...(suggestion.recommendation_type ? { recommendation_type: sanitize(suggestion.recommendation_type, 40) } : {}),
    ...applyFacts(suggestion, budget),
  };
}

/** The proposed daily budget in micros, when the payload's value is one. */
function budgetMicros(suggestion: Suggestion): number | undefined {
  const value = suggestion.action_payload?.value;
  const isBudget =
    suggestion.action === 'edit_budget' ||
    suggestion.recommendation_type === 'CAMPAIGN_BUDGET' ||
    /budget/i.test(suggestion.action_payload?.field ?? '');
  return isBudget && typeof value === 'number' && value > 0 ? value : undefined;
}

function describe(ctx: Steps, campaign: string, sorted: Suggestion[], rows: Row[], adnetIncluded: boolean, page: Page): string {
  const notes = adnetIncluded
    ? []
    : ["No suggestion came from the ad platform (adnet): its recommendations may be missing because it can be unreachable, and the answer does not say so; calling again later may add them."];
  if (sorted.length === 0) {
    return [`Nothing needs attention for campaign ${campaign}: no suggestions.`, ...notes].join('\n');
  }
  const counts = [...SEVERITY_ORDER, 'other']
    .map((severity, index) => [severity, sorted.filter((suggestion) => rank(suggestion) === index).length] as const)
    .filter(([, count]) => count > 0)
    .map(([severity, count]) => `${count} ${severity}`);
  const part = page.skip > 0 ? `; ${page.skip + 1} to ${page.skip + page.shown} shown` : '';
  const lines: string[] = [
    `${plural(sorted.length, 'suggestion')} for campaign ${campaign} (${counts.join(', ')}${part}), most severe first; source is the service unless marked adnet:`,
  ];
  if (page.shown === 0) lines.push(`None after the first ${page.skip}: call again with a smaller skip.`);
  rows.forEach(({ severity, text }, index) => {
    if (severity !== rows[index - 1]?.severity) lines.push(`${idText(severity)}:`);
    lines.push(text);
  });
  if (page.rest > 0) lines.push(`${plural(page.rest, 'more suggestion')} (same or lower severity) not shown: call again with skip: ${page.skip + page.shown}.`);
  if (rows.some(({ fact }) => fact.recommendation_resource_name)) {
    const apply = aside(ctx, 'apply_budget_recommendation', {}, (call) => `with ${call}, passing its recommendation_resource_name and recommended_daily_budget_micros as shown (the user confirms the new budget first)`);
    if (apply) notes.push(`Apply a CAMPAIGN_BUDGET suggestion ${apply}.`);
  }
  // Issue 29: a suggestion whose action no operation carries out (an edit_budget of the service's own,
  // sitelinks, assets) must not read as something a tool will do.
  if (rows.some(({ fact }) => fact.action && !fact.recommendation_resource_name)) {
    notes.push(rows.some(({ fact }) => fact.recommendation_resource_name) ? MANUAL_BESIDE_APPLY : MANUAL);
  }
  return [...lines, ...notes].join('\n');
}

/** `- id "title" action payload [adnet TYPE]`, and for the first few a description excerpt. */
function line(fact: Facts, suggestion: Suggestion, described: boolean): string {
  const parts = [`- ${idText(fact.id)} ${quote(suggestion.title, TITLE_MAX)}`, fact.action ? idText(fact.action) : 'no action'];
  const budget = budgetMicros(suggestion);
  const { field, value } = suggestion.action_payload ?? {};
  if (budget !== undefined) parts.push(fact.action ? `to ${money(budget)}/day` : `(proposes ${money(budget)}/day)`);
  else if (field && typeof value === 'number' && value !== 0) parts.push(`${sanitize(field, 40)} ${value}`);
  if (fact.campaign_ids) parts.push(`on ${fact.campaign_ids.map(idText).join(', ')}`);
  if (fact.source) parts.push(`[${[fact.source, fact.recommendation_type].flatMap((tag) => (tag ? [idText(tag)] : [])).join(' ')}]`);
  const description = described && suggestion.description ? `\n  ${quote(suggestion.description, DESCRIPTION_MAX)}` : '';
  return parts.join(' ') + description + applyLine(fact);
}
