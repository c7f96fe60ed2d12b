// A campaign's one action, for a table row and for the card alike: Pause while ENABLED (free, not
// gated: one direct call per press) and Resume while PAUSED (gated: the first call only brings the
// warning, and the confirmation panel's button sends the one confirmed call). Each action shows its
// progress and outcome in a Place its caller provides, then asks the Place to read the campaign again.
import type { View } from '../shared/app.js';
import { confirmationPanel, kindOf, outcome } from '../shared/confirm.js';
import { h } from '../shared/dom.js';
import type { Row } from './rows.js';

/** Where a campaign's action shows its panel and outcome, and how its figures are read again. */
export interface Place {
  show(element: HTMLElement): void;
  add(element: HTMLElement): void;
  refresh(): Promise<void>;
}

/** The button a campaign's status allows: Pause while ENABLED, Resume while PAUSED, none otherwise. */
export function actionFor(view: View, appId: string, row: Pick<Row, 'campaign_id' | 'status' | 'name'>, place: Place): HTMLElement | null {
  if (row.status === 'ENABLED') return pauseButton(view, appId, row, place);
  if (row.status === 'PAUSED') return resumeButton(view, appId, row, place);
  return null;
}

/** Pause is free and not gated: one direct call per press, the button disabled from the first press. */
function pauseButton(view: View, appId: string, row: Pick<Row, 'campaign_id' | 'name'>, place: Place): HTMLElement {
  const button = h('button', { type: 'button', class: 'pause', 'aria-label': `Pause ${row.name || row.campaign_id}` }, 'Pause');
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    place.show(h('p', { class: 'muted sending', role: 'status' }, 'Pausing…'));
    const result = await view.call('pause_ad_campaign', { app_id: appId, campaign_id: row.campaign_id });
    const kind = kindOf(result);
    const shown = outcome(kind === 'warning' ? 'refused' : kind, result);
    place.show(shown);
    shown.focus();
    if (kind === 'done') view.tell(`The person paused campaign ${row.campaign_id} in the campaigns view.`);
    await place.refresh();
  });
  return button;
}

/**
 * Resume re-opens spend and is gated: the first call (without confirm) only brings the warning, which
 * the confirmation panel shows; its button sends the one confirmed call.
 */
function resumeButton(view: View, appId: string, row: Pick<Row, 'campaign_id' | 'name'>, place: Place): HTMLElement {
  const button = h('button', { type: 'button', class: 'resume', 'aria-label': `Resume ${row.name || row.campaign_id}` }, 'Resume…');
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    const args = { app_id: appId, campaign_id: row.campaign_id };
    place.show(h('p', { class: 'muted sending', role: 'status' }, 'Asking what resuming will spend…'));
    const warning = await view.call('resume_ad_campaign', args);
    const kind = kindOf(warning);
    if (kind !== 'warning') return place.show(outcome(kind, warning));
    const panel = confirmationPanel(view, warning, { tool: 'resume_ad_campaign', args }, { answered: () => void place.refresh() });
    place.show(panel);
    panel.querySelector<HTMLElement>('.approve')?.focus();
  });
  return button;
}
