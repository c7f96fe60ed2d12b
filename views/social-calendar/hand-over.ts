// Handing approved posts over for publishing: the banner that counts the approved posts not handed
// over yet and, when the result gives the app and the schedule range, the button that calls
// start_scheduling_posts for that range once, whatever the clicks, and shows its outcome.
import type { View } from '../shared/app.js';
import { kindOf, outcome } from '../shared/confirm.js';
import { h } from '../shared/dom.js';
import { count, instantOf, text, type Calendar } from './calendar.js';
import { count as figure, dateTime } from '../shared/format.js';

export function waitingBanner(calendar: Calendar): HTMLElement | null {
  const waiting = count(calendar.facts.approved_waiting) ?? 0;
  if (waiting === 0) return null;
  const where = calendar.from !== undefined || calendar.until !== undefined ? 'in the listed range' : 'on the calendar';
  const banner = h(
    'section',
    { class: 'waiting-banner' },
    h('p', {}, h('strong', { class: 'waiting-count' }, figure(waiting)), ` approved ${waiting === 1 ? 'post' : 'posts'} ${where} ${waiting === 1 ? 'is' : 'are'} not handed over for publishing yet. They are marked below.`),
  );
  const range = calendar.facts.schedule_range as Record<string, unknown> | undefined;
  const scheduledFrom = instantOf(range?.scheduled_from);
  const scheduledUntil = instantOf(range?.scheduled_until);
  if (calendar.asked && scheduledFrom !== undefined && scheduledUntil !== undefined) {
    banner.append(handOver(calendar.view, { app_id: calendar.appId, scheduled_from: text(range!.scheduled_from), scheduled_until: text(range!.scheduled_until) }, scheduledFrom, scheduledUntil));
  }
  return banner;
}

/** The button that calls start_scheduling_posts (not gated: it costs nothing): one call, whatever the clicks. */
function handOver(view: View, args: Record<string, string | undefined>, from: number, until: number): HTMLElement {
  const button = h('button', { type: 'button', class: 'hand-over primary' }, 'Hand them over for publishing');
  const status = h('p', { class: 'muted sending', role: 'status', hidden: true }, 'Starting…');
  const part = h(
    'div',
    { class: 'hand-over-part' },
    h('p', { class: 'muted' }, `Starts scheduling the approved posts from ${dateTime(from)} until ${dateTime(until)} (excluded). Proposals stay unpublished. Nothing is sent until you press.`),
    h('div', { class: 'buttons' }, button),
    status,
  );
  let pressed = false;
  button.addEventListener('click', async () => {
    if (pressed) return;
    pressed = true;
    button.disabled = true;
    status.hidden = false;
    const result = await view.call('start_scheduling_posts', args);
    status.hidden = true;
    const kind = kindOf(result);
    const shown = outcome(kind === 'warning' ? 'refused' : kind, result);
    part.append(shown);
    shown.focus();
    if (kind === 'done') view.tell('The person handed the approved posts over for publishing in the social calendar.');
    // The grid shows the statuses as listed; the job changes them only once it completes.
    if (kind === 'done') part.append(h('p', { class: 'muted after' }, 'The posts below keep the status they were listed with until the job completes; ask for the calendar again then.'));
  });
  return part;
}
