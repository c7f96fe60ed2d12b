// What a suggestion's row lets the person do: Dismiss (dismiss_campaign_suggestion, one call per
// press, settled only when the service says it hid the suggestion) and Apply for a budget
// recommendation on this campaign (apply_budget_recommendation: the warning first, nothing sent, then
// the confirmation panel whose Approve sends the one confirmed call). Both keep the List's counts of
// removed and pending rows that paging needs, and mark the row done when they succeed.
import { factsOf, textOf } from '../shared/app.js';
import { confirmationPanel, isWarning, kindOf, outcome } from '../shared/confirm.js';
import { h, money } from '../shared/dom.js';
import type { Fact, List } from './list.js';

const DISMISS_TOOL = 'dismiss_campaign_suggestion';
const APPLY_TOOL = 'apply_budget_recommendation';

/** Marks a row as done here: dimmed, with a line saying what happened. */
function settle(item: HTMLElement, state: 'dismissed' | 'applied', line: string): void {
  item.classList.add(state);
  item.querySelectorAll('button').forEach((button) => (button.disabled = true));
  item.querySelector('.row-result')!.prepend(h('p', { class: 'row-status', role: 'status' }, line));
}

export function dismissButton(list: List, fact: Fact, item: HTMLElement, result: HTMLElement): HTMLElement {
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
export function applicable(list: List, fact: Fact): ApplyArgs | undefined {
  const { recommendation_type: type, recommendation_resource_name: name, recommended_daily_budget_micros: micros } = fact;
  if (type !== 'CAMPAIGN_BUDGET' || !name || typeof micros !== 'number' || !fact.action) return undefined;
  if (fact.campaign_ids && !fact.campaign_ids.includes(list.campaignId)) return undefined;
  return { app_id: list.appId, campaign_id: list.campaignId, recommendation_resource_name: name, recommended_daily_budget_micros: micros };
}

/** Apply: the call without confirm (a warning: nothing is sent), then the panel whose Approve sends the one confirmed call. */
export function applyButton(list: List, args: ApplyArgs, item: HTMLElement, result: HTMLElement): HTMLElement {
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
