// The confirmation panel: a gated tool's warning as a card the person approves or cancels. It is a
// way for the person to act, not a second gate: Approve calls the same tool with the same arguments
// plus confirm: true through the host, once, and the server's gate decides as for any call.
import { factsOf, textOf, viewOf, type ToolResultLike, type View } from './app.js';
import { h } from './dom.js';

type Kind = 'done' | 'refused' | 'unknown' | 'cancelled';
const TITLES: Record<Kind, string> = { done: 'Done', refused: 'Not done', unknown: 'OUTCOME UNKNOWN', cancelled: 'Cancelled' };

export const isWarning = (result: ToolResultLike): boolean => factsOf(result).confirmation_needed === true;

/** What a gated tool's answer means for the person: done, refused (nothing happened) or unknown. */
export function kindOf(result: ToolResultLike): Exclude<Kind, 'cancelled'> {
  if (/OUTCOME UNKNOWN/.test(textOf(result))) return 'unknown';
  return result.isError ? 'refused' : 'done';
}

/** The answer of a gated call (or of a refusal), as the panel's last part. */
export function outcome(kind: Kind, text: string): HTMLElement {
  return h('section', { class: 'outcome', 'data-kind': kind, role: 'status' }, h('h2', { class: 'outcome-title' }, TITLES[kind]), h('pre', { class: 'outcome-text' }, text));
}

function expiryLine(expiresAt: unknown): string {
  const at = typeof expiresAt === 'string' ? new Date(expiresAt) : undefined;
  if (!at || Number.isNaN(at.getTime())) return 'The warning expires 10 minutes after it was given. Nothing has been sent yet.';
  const time = at.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', hourCycle: 'h23', timeZoneName: 'short' });
  return `Approve by ${time}: the warning expires then (10 minutes after it was given). Nothing has been sent yet.`;
}

/** The warning's lines as a list; the lines the gate indents with "- " (the request's fields) nest under the line before. */
function detailList(lines: string[]): HTMLElement {
  const list = h('ul', { class: 'details' });
  let fields: HTMLElement | undefined;
  for (const line of lines) {
    const field = /^- (.*)$/s.exec(line);
    const parent = list.lastElementChild;
    if (field && parent) {
      if (!fields || fields.parentElement !== parent) parent.append((fields = h('ul', { class: 'fields' })));
      fields.append(h('li', {}, field[1]!));
    } else list.append(h('li', {}, line));
  }
  return list;
}

/**
 * A card for `warning`, the answer of `tool` called with `args` (without confirm). `onAnswer` gets the
 * confirmed call's result, for a view that shows its effect (a campaign's new status, say).
 */
export function confirmationPanel(view: View, tool: string, args: Record<string, unknown>, warning: ToolResultLike, onAnswer?: (result: ToolResultLike) => void): HTMLElement {
  const facts = factsOf(warning);
  const shown = viewOf(warning);
  const details = Array.isArray(shown.details) ? shown.details.map(String) : [];
  const approve = h('button', { type: 'button', class: 'approve primary' }, 'Approve');
  const cancel = h('button', { type: 'button', class: 'cancel' }, 'Cancel');
  const status = h('p', { class: 'muted sending', hidden: true }, 'Sending…');
  const panel = h(
    'section',
    { class: 'confirmation' },
    h('h1', { class: 'action' }, String(facts.action ?? shown.action ?? '')),
    h('h2', {}, 'What will be sent'),
    detailList(details),
    h('p', { class: 'cost' }, h('span', { class: 'label' }, 'Cost'), ' ', h('span', { class: 'cost-value' }, String(facts.cost ?? ''))),
    h('p', { class: 'muted expiry' }, expiryLine(shown.expires_at)),
    typeof facts.earlier_attempt === 'string' ? h('p', { class: 'muted earlier' }, `Earlier attempt: ${facts.earlier_attempt}`) : null,
    h('div', { class: 'buttons' }, approve, cancel),
    status,
  );
  // Set on the first press of either button: one card sends at most one confirmation.
  let decided = false;
  const decide = () => {
    if (decided) return false;
    decided = true;
    approve.disabled = cancel.disabled = true;
    return true;
  };
  approve.addEventListener('click', async () => {
    if (!decide()) return;
    status.hidden = false;
    const result = await view.call(tool, { ...args, confirm: true });
    status.hidden = true;
    panel.append(outcome(kindOf(result), textOf(result)));
    onAnswer?.(result);
  });
  cancel.addEventListener('click', () => {
    if (decide()) panel.append(outcome('cancelled', 'Nothing was sent. The warning expires on its own.'));
  });
  return panel;
}
