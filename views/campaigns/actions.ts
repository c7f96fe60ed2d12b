// A campaign's one action, for a table row and for the card alike: Pause while ENABLED (free, not
// gated: one direct call per press) and Resume while PAUSED (gated: the first call only brings the
// warning, and the confirmation panel's Approve sends the one confirmed call). Each action shows its
// progress and outcome in a Place its caller provides, then asks the Place to read the campaign again.
import { textOf, type View } from '../shared/app.js';
import { confirmationPanel, isWarning, kindOf, outcome } from '../shared/confirm.js';
import { h } from '../shared/dom.js';
import type { Row } from './rows.js';

/** Where a campaign's action shows its panel and outcome, and how its figures are read again. */
export interface Place {
  show(element: HTMLElement): void;
  add(element: HTMLElement): void;
  refresh(): Promise<void>;
}

/** The button a campaign's status allows: Pause while ENABLED, Resume while PAUSED, none otherwise. */
export function actionFor(view: View, appId: string, row: Pick<Row, 'campaign_id' | 'status'>, place: Place): HTMLElement | null {
  if (row.status === 'ENABLED') return pauseButton(view, appId, row.campaign_id, place);
  if (row.status === 'PAUSED') return resumeButton(view, appId, row.campaign_id, place);
  return null;
}

/** Pause is free and not gated: one direct call per press, the button disabled from the first press. */
function pauseButton(view: View, appId: string, campaignId: string, place: Place): HTMLElement {
  const button = h('button', { type: 'button', class: 'pause' }, 'Pause');
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    place.show(h('p', { class: 'muted sending' }, 'Pausing…'));
    const result = await view.call('pause_ad_campaign', { app_id: appId, campaign_id: campaignId });
    place.show(outcome(kindOf(result), textOf(result)));
    await place.refresh();
  });
  return button;
}

/**
 * Resume re-opens spend and is gated: the first call (without confirm) only brings the warning, which
 * the confirmation panel shows; its Approve sends the one confirmed call.
 */
function resumeButton(view: View, appId: string, campaignId: string, place: Place): HTMLElement {
  const button = h('button', { type: 'button', class: 'resume' }, 'Resume');
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    const args = { app_id: appId, campaign_id: campaignId };
    place.show(h('p', { class: 'muted sending' }, 'Asking what resuming will spend…'));
    const warning = await view.call('resume_ad_campaign', args);
    if (!isWarning(warning)) return place.show(outcome(kindOf(warning), textOf(warning)));
    place.show(confirmationPanel(view, 'resume_ad_campaign', args, warning, () => void place.refresh()));
  });
  return button;
}
