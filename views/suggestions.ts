// Campaign suggestions (MCP Apps view of list_campaign_suggestions): every suggestion by severity with
// its title and description (view data: the facts leave that prose out), the rest of the list one
// page at a time through the tool's own skip, Dismiss, and Apply for budget recommendations through
// the confirmation panel (the gate decides, as for any call).
import { factsOf, startView, textOf, viewOf, type ToolResultLike, type View } from './shared/app.js';
import { confirmationPanel, isWarning, kindOf, outcome } from './shared/confirm.js';
import { byId, h, money } from './shared/dom.js';

const LIST_TOOL = 'list_campaign_suggestions';
const DISMISS_TOOL = 'dismiss_campaign_suggestion';
const APPLY_TOOL = 'apply_budget_recommendation';
const SEVERITIES = ['high', 'medium', 'low', 'other'] as const;
type Severity = (typeof SEVERITIES)[number];
const LABELS: Record<Severity, string> = { high: 'High', medium: 'Medium', low: 'Low', other: 'Other' };
/** Calls "Show more" makes looking further back for a row already shown, before it starts from the first. */
const MAX_ANCHOR_TRIES = 4;

/** One suggestion's facts (the tool's structuredContent row). */
interface Fact {
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
interface Prose {
  title: string;
  description: string;
  dismissable: boolean;
}

interface Page {
  campaignId: string;
  count: number;
  adnetIncluded: boolean;
  rows: Array<{ severity: Severity; fact: Fact; prose?: Prose }>;
  nextSkip?: number;
}

/** The list on screen, and what paging needs to reach the rest of it. */
interface List {
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

const main = byId('suggestions');

await startView('suggestions', (result, view) => render(result, view));

function render(result: ToolResultLike, view: View): void {
  if (result.isError) return void main.replaceChildren(outcome(kindOf(result), textOf(result)));
  const page = pageOf(result);
  const args = view.toolArguments() ?? {};
  const list: List = {
    view,
    appId: args.app_id,
    campaignId: page.campaignId,
    groups: { high: h('ol', { class: 'rows' }), medium: h('ol', { class: 'rows' }), low: h('ol', { class: 'rows' }), other: h('ol', { class: 'rows' }) },
    ids: new Set(),
    removed: 0,
    pending: 0,
    summary: h('p', { class: 'summary' }),
    footer: h('div', { class: 'footer' }),
  };
  const notice = page.adnetIncluded
    ? []
    : [h('p', { class: 'muted notice' }, 'None came from the ad platform (adnet): it may have been unreachable, and the answer does not say so; opening the list again later may add them.')];
  main.replaceChildren(
    h('h1', {}, `Suggestions for campaign ${page.campaignId}`),
    list.summary,
    ...notice,
    h('p', { class: 'muted hint' }, 'Dismiss hides a suggestion for everyone in the workspace and cannot be undone. Apply raises a daily budget only after you approve the cost.'),
    ...SEVERITIES.map((severity) => h('section', { class: 'group', 'data-severity': severity, hidden: true }, h('h2', {}, LABELS[severity]), list.groups[severity])),
    list.footer,
  );
  const skipped = typeof args.skip === 'number' && args.skip > 0 ? args.skip : 0;
  append(list, page, skipped);
}

function pageOf(result: ToolResultLike): Page {
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

/** Adds a page's rows (none twice), and says how many are shown and how to reach the rest. */
function append(list: List, page: Page, skipped: number): void {
  for (const { severity, fact, prose } of page.rows) {
    if (list.ids.has(fact.id)) continue;
    list.ids.add(fact.id);
    list.groups[severity].append(row(list, fact, prose));
    list.groups[severity].parentElement!.hidden = false;
  }
  const shown = main.querySelectorAll('.suggestion:not(.dismissed):not(.applied)').length;
  list.summary.textContent =
    page.count === 0
      ? 'No suggestions: nothing needs attention now.'
      : `${page.count} ${page.count === 1 ? 'suggestion' : 'suggestions'}, most severe first; ${shown} shown here. Source is the service unless marked adnet.`;
  list.footer.replaceChildren(...paging(list, page, skipped));
}

/** "Show N more" while the tool says there are more, and "Show from the first" when the model skipped some. */
function paging(list: List, page: Page, skipped: number): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (skipped > 0) {
    parts.push(h('p', { class: 'muted' }, `The first ${skipped} were skipped in this call.`), loader(list, 'Show from the first', 'first', () => listPage(list, 0), true));
  }
  const { nextSkip } = page;
  if (nextSkip !== undefined) {
    const rest = Math.max(0, page.count - nextSkip);
    parts.push(loader(list, `Show ${rest} more`, 'more', () => nextPage(list, Math.max(0, nextSkip - list.removed - list.pending)), false, skipped));
  }
  return parts;
}

function listPage(list: List, skip: number): Promise<ToolResultLike> {
  list.removed = 0;
  return list.view.call(LIST_TOOL, { app_id: list.appId, campaign_id: list.campaignId, skip });
}

/**
 * The page after the rows shown, from `from` (where it starts if only this view changed the list). It
 * asks for one row more, and takes the page only when it starts at a row already shown: otherwise
 * suggestions were dismissed or applied elsewhere (the model, another view) and rows moved up past
 * `from`, so it looks further back (rows shown twice are skipped), and at last from the first.
 */
async function nextPage(list: List, from: number): Promise<ToolResultLike> {
  let skip = Math.max(0, from - 1);
  for (let tries = 1; ; tries += 1) {
    const result = await listPage(list, skip);
    const first = pageOf(result).rows[0];
    if (result.isError || skip === 0 || (first && list.ids.has(first.fact.id))) return result;
    skip = tries >= MAX_ANCHOR_TRIES ? 0 : Math.max(0, skip - 2 ** tries);
  }
}

/** A button that asks for a page with `load`, once per press, and adds (or, from the first, replaces) its rows. */
function loader(list: List, label: string, name: string, load: () => Promise<ToolResultLike>, restart: boolean, skipped = 0): HTMLElement {
  const button = h('button', { type: 'button', class: name }, label);
  const status = h('div', { class: 'load-status' });
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    status.replaceChildren(h('p', { class: 'muted' }, 'Loading…'));
    const result = await load();
    if (result.isError) {
      button.disabled = false;
      return void status.replaceChildren(outcome(kindOf(result), textOf(result)));
    }
    if (restart) {
      list.ids.clear();
      for (const severity of SEVERITIES) {
        list.groups[severity].replaceChildren();
        list.groups[severity].parentElement!.hidden = true;
      }
    }
    append(list, pageOf(result), restart ? 0 : skipped);
  });
  return h('div', { class: 'loader' }, button, status);
}

/** One suggestion: what it says, what it would do, and what can be done with it here. */
function row(list: List, fact: Fact, prose: Prose | undefined): HTMLElement {
  const source = [fact.source ?? 'service', fact.recommendation_type].filter(Boolean).join(' · ');
  const result = h('div', { class: 'row-result' });
  const item = h(
    'li',
    { class: 'suggestion', 'data-id': fact.id },
    h('div', { class: 'row-head' }, h('span', { class: 'title' }, prose?.title || fact.id), h('span', { class: 'source', 'data-source': fact.source ?? 'service' }, source)),
    prose?.description ? h('p', { class: 'description' }, prose.description) : null,
    h('p', { class: 'meta' }, ...metaParts(fact)),
  );
  const buttons = h('div', { class: 'buttons' });
  if (prose?.dismissable) buttons.append(dismissButton(list, fact, item, result));
  const apply = applicable(list, fact);
  if (apply) buttons.append(applyButton(list, apply, item, result));
  else if (fact.recommendation_resource_name) buttons.append(h('span', { class: 'muted elsewhere' }, 'Not for a campaign managed here: it can only be applied at the ad platform.'));
  if (buttons.childElementCount > 0) item.append(buttons);
  item.append(result);
  return item;
}

function metaParts(fact: Fact): Array<HTMLElement | string> {
  const parts: Array<HTMLElement | string> = [h('span', { class: 'action-name' }, fact.action ? fact.action.replace(/_/g, ' ') : 'no action')];
  if (typeof fact.daily_budget === 'number') parts.push(' · ', h('span', { class: 'budget' }, `proposed daily budget ${money(fact.daily_budget)}`));
  // The facts name campaigns only when they are not just this one.
  if (fact.campaign_ids) parts.push(' · ', h('span', { class: 'campaigns' }, `on ${fact.campaign_ids.join(', ')}`));
  parts.push(' · ', h('span', { class: 'id' }, fact.id));
  return parts;
}

/** Marks a row as done here: dimmed, with a line saying what happened. */
function settle(item: HTMLElement, state: 'dismissed' | 'applied', line: string): void {
  item.classList.add(state);
  item.querySelectorAll('button').forEach((button) => (button.disabled = true));
  item.querySelector('.row-result')!.prepend(h('p', { class: 'row-status', role: 'status' }, line));
}

function dismissButton(list: List, fact: Fact, item: HTMLElement, result: HTMLElement): HTMLElement {
  const button = h('button', { type: 'button', class: 'dismiss', title: 'Hides it for everyone in the workspace; cannot be undone.' }, 'Dismiss');
  let busy = false;
  button.addEventListener('click', async () => {
    if (busy || item.classList.contains('dismissed')) return;
    busy = button.disabled = true;
    list.pending += 1;
    const answer = await list.view.call(DISMISS_TOOL, { app_id: list.appId, insight_id: fact.id });
    list.pending -= 1;
    busy = false;
    if (kindOf(answer) === 'done' && factsOf(answer).dismissed === true) {
      list.removed += 1;
      return settle(item, 'dismissed', 'Dismissed: hidden for everyone in the workspace (cannot be undone).');
    }
    // Nothing was hidden, or nobody knows: dismissing again is safe (the service treats a repeat as one).
    button.disabled = false;
    result.replaceChildren(outcome(kindOf(answer), textOf(answer)));
  });
  return button;
}

type ApplyArgs = { app_id: unknown; campaign_id: string; recommendation_resource_name: string; recommended_daily_budget_micros: number };

/**
 * The apply call's arguments, for a CAMPAIGN_BUDGET suggestion that names its recommendation and acts
 * on this campaign; apply_budget_recommendation refuses any other before its warning.
 */
function applicable(list: List, fact: Fact): ApplyArgs | undefined {
  const { recommendation_type: type, recommendation_resource_name: name, recommended_daily_budget_micros: micros } = fact;
  if (type !== 'CAMPAIGN_BUDGET' || !name || typeof micros !== 'number' || !fact.action) return undefined;
  if (fact.campaign_ids && !fact.campaign_ids.includes(list.campaignId)) return undefined;
  return { app_id: list.appId, campaign_id: list.campaignId, recommendation_resource_name: name, recommended_daily_budget_micros: micros };
}

/** Apply: the call without confirm (a warning: nothing is sent), then the panel whose Approve sends the one confirmed call. */
function applyButton(list: List, args: ApplyArgs, item: HTMLElement, result: HTMLElement): HTMLElement {
  const button = h('button', { type: 'button', class: 'apply primary' }, 'Apply…');
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    result.replaceChildren(h('p', { class: 'muted' }, 'Reading the current budget…'));
    const warning = await list.view.call(APPLY_TOOL, args);
    if (!isWarning(warning)) {
      button.disabled = false;
      return void result.replaceChildren(outcome(kindOf(warning), textOf(warning)));
    }
    const panel = confirmationPanel(list.view, APPLY_TOOL, args, warning, (answer) => {
      list.pending -= 1;
      if (kindOf(answer) !== 'done') return;
      list.removed += 1;
      settle(item, 'applied', appliedLine(factsOf(answer)));
    });
    // The panel's Approve fires once (it is disabled after): its answer comes back through the callback above.
    panel.querySelector('.approve')?.addEventListener('click', () => (list.pending += 1));
    // Cancelled: nothing was sent, and a new press asks for a new warning.
    panel.querySelector('.cancel')?.addEventListener('click', () => (button.disabled = false));
    result.replaceChildren(panel);
  });
  return button;
}

function appliedLine(facts: Record<string, unknown>): string {
  if (facts.already_applied === true) return 'Already applied earlier: nothing changed now.';
  return typeof facts.daily_budget === 'number' ? `Applied: daily budget now ${money(facts.daily_budget)}.` : 'Applied; the service did not give the new budget.';
}
