// What a suggestion's row lets the person do: Dismiss (dismiss_campaign_suggestion: it asks once,
// since it hides the suggestion for the whole workspace for good, then one call per press, settled
// only when the service says it hid the suggestion) and Apply for a budget recommendation on this
// campaign (apply_budget_recommendation: the warning first, nothing sent, then the confirmation panel
// whose button sends the one confirmed call). Both keep the List's counts of removed and pending rows
// that paging needs, and mark the row done when they succeed.
import { factsOf } from '../shared/app.js';
import { confirmationPanel, kindOf, outcome } from '../shared/confirm.js';
import { h } from '../shared/dom.js';
import { money } from '../shared/format.js';
import type { Fact, List } from './list.js';

const DISMISS_TOOL = 'dismiss_campaign_suggestion';
const APPLY_TOOL = 'apply_budget_recommendation';

/** Marks a row as done here: dimmed, with a line saying what happened, which takes the focus. */
function settle(item: HTMLElement, state: 'dismissed' | 'applied', line: string): void {
  item.classList.add(state);
  item.querySelectorAll('button').forEach((button) => (button.disabled = true));
  const said = h('p', { class: 'row-status', tabindex: '-1' }, line);
  item.querySelector('.row-result')!.replaceChildren(said);
  said.focus();
}

/** Dismiss, which first asks once: "Dismiss for everyone?" with the red button that does it, or Keep. */
export function dismissButton(list: List, fact: Fact, item: HTMLElement, result: HTMLElement): HTMLElement {
  const button = h('button', { type: 'button', class: 'dismiss' }, 'Dismiss…');
  button.addEventListener('click', () => {
    if (button.disabled || item.classList.contains('dismissed')) return;
    button.disabled = true;
    const sure = h('button', { type: 'button', class: 'confirm-dismiss danger' }, 'Dismiss suggestion');
    const keep = h('button', { type: 'button', class: 'keep' }, 'Keep it');
    result.replaceChildren(h('div', { class: 'ask' }, h('p', {}, 'Dismiss it for everyone in the workspace? This cannot be undone.'), h('div', { class: 'buttons' }, sure, keep)));
    sure.focus();
    keep.addEventListener('click', () => {
      result.replaceChildren();
      button.disabled = false;
      button.focus();
    });
    let busy = false;
    sure.addEventListener('click', async () => {
      if (busy) return;
      busy = sure.disabled = keep.disabled = true;
      list.pending += 1;
      const answer = await list.view.call(DISMISS_TOOL, { app_id: list.appId, insight_id: fact.id });
      list.pending -= 1;
      const kind = kindOf(answer);
      if (kind === 'done' && factsOf(answer).dismissed === true) {
        list.removed += 1;
        list.view.tell(`The person dismissed suggestion ${fact.id} of campaign ${list.campaignId} in the suggestions view.`);
        return settle(item, 'dismissed', 'Dismissed: hidden for everyone in the workspace.');
      }
      // Nothing was hidden, or nobody knows: dismissing again is safe (the service treats a repeat as one).
      button.disabled = false;
      const shown = outcome(kind === 'done' || kind === 'warning' ? 'refused' : kind, answer);
      result.replaceChildren(shown);
      shown.focus();
    });
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

/** Apply: the call without confirm (a warning: nothing is sent), then the panel whose button sends the one confirmed call. */
export function applyButton(list: List, args: ApplyArgs, item: HTMLElement, result: HTMLElement): HTMLElement {
  const button = h('button', { type: 'button', class: 'apply primary' }, 'Apply…');
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    result.replaceChildren(h('p', { class: 'muted', role: 'status' }, 'Reading the current budget…'));
    const warning = await list.view.call(APPLY_TOOL, args);
    const kind = kindOf(warning);
    if (kind !== 'warning') {
      button.disabled = false;
      return void result.replaceChildren(outcome(kind, warning));
    }
    // The panel sends at most one confirmation: pending while it runs, then settled by its answer.
    const panel = confirmationPanel(list.view, warning, { tool: APPLY_TOOL, args }, {
      sent: () => (list.pending += 1),
      answered(answer) {
        list.pending -= 1;
        if (kindOf(answer) !== 'done') return;
        list.removed += 1;
        settle(item, 'applied', appliedLine(factsOf(answer)));
      },
      // Nothing was sent, and a new press asks for a new warning.
      cancelled: () => (button.disabled = false),
    });
    result.replaceChildren(panel);
    panel.querySelector<HTMLElement>('.approve')?.focus();
  });
  return button;
}

function appliedLine(facts: Record<string, unknown>): string {
  if (facts.already_applied === true) return 'Already applied earlier: nothing changed now.';
  return typeof facts.daily_budget === 'number' ? `Applied: daily budget now ${money(facts.daily_budget)}.` : 'Applied; the service did not give the new budget.';
}
