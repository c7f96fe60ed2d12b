// The confirmation panel: a gated tool's warning as a card the person approves or cancels. It is a
// way for the person to act, not a second gate: the approve button calls the same tool with the same
// arguments plus confirm: true through the host, once, and the server's gate decides as for any call.
// Everything it needs is in the warning's own view data (src/gate/card.ts): the host's toolInfo and
// tool input are optional in the spec, and a warning is never shown as done.
import { factsOf, textOf, viewOf, type ToolResultLike, type View } from './app.js';
import { h, sentence } from './dom.js';
import { forPerson, money, timeWithZone, words } from './format.js';

export type Kind = 'warning' | 'done' | 'refused' | 'unknown' | 'cancelled';
const TITLES: Record<Exclude<Kind, 'warning'>, string> = { done: 'Done', refused: 'Not done', unknown: 'Outcome unknown', cancelled: 'Cancelled' };

/** A sentence of the server's as a person reads it: names isolated, amounts for the locale, statuses in words. */
const said = (text: string) => sentence(text, forPerson);

/** A warning: nothing was sent, and a person may confirm it. */
export const isWarning = (result: ToolResultLike): boolean =>
  !result.isError && (factsOf(result).confirmation_needed === true || viewOf(result).pending === true || /^(\[sandbox\] )?CONFIRMATION NEEDED/.test(textOf(result)));

/** What an answer means for the person: a warning, done, refused (nothing happened) or unknown. */
export function kindOf(result: ToolResultLike): Exclude<Kind, 'cancelled'> {
  if (isWarning(result)) return 'warning';
  if (/OUTCOME UNKNOWN/.test(textOf(result))) return 'unknown';
  return result.isError ? 'refused' : 'done';
}

/** The answer in one line for a person: the gate's summary of what was done, else the text's first sentence without its capitals. */
function oneLine(result: ToolResultLike): string {
  const said = viewOf(result).outcome;
  if (typeof said === 'string' && said) return `${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
  const text = textOf(result).replace(/^\[sandbox\] /, '').replace(/^(OUTCOME UNKNOWN|NOT SENT|NOT RECORDED|REFUSED(?: \(\d+\))?|Refused): /, '');
  const first = /^[^\n]*?[.!?](?=\s|$)/.exec(text)?.[0] ?? text.split('\n')[0]!;
  return `${first.charAt(0).toUpperCase()}${first.slice(1)}`;
}

/**
 * The answer as one line, with the whole text behind "Details" when there is more; focusable, so the
 * person's focus can move to it after they decided.
 */
export function outcome(kind: Exclude<Kind, 'warning'>, result: ToolResultLike | string): HTMLElement {
  const line = typeof result === 'string' ? result : oneLine(result);
  const text = typeof result === 'string' ? '' : textOf(result);
  return h(
    'section',
    { class: 'outcome', 'data-kind': kind, tabindex: '-1' },
    h('p', { class: 'outcome-line' }, h('strong', { class: 'outcome-title' }, TITLES[kind]), ': ', h('span', { class: 'outcome-text' }, ...said(line))),
    text && text !== line ? h('details', { class: 'more' }, h('summary', {}, 'Details'), h('pre', { class: 'outcome-full' }, text)) : null,
  );
}

/**
 * One request field ("daily_budget_micros: 5000000 (5.00 a day)") as a person reads it: its name in
 * words, an amount in units for the locale, a quoted value without its quotes, an enum in words.
 */
function field(text: string): Array<Node | string> {
  const parsed = /^([a-z][a-z0-9_]*): (.*)$/s.exec(text);
  if (!parsed) return said(text);
  const [, key, value] = parsed as unknown as [string, string, string];
  const micros = /_micros$/.test(key) && /^\d+(?= |$)/.exec(value);
  const quoted = /^"(.*)"$/s.exec(value)?.[1];
  const shown = micros ? `${money(Number(micros[0]) / 1_000_000, true)}${key.includes('daily') ? ' a day' : ''}` : quoted !== undefined ? words(quoted) : forPerson(value);
  return [h('span', { class: 'field-name' }, words(key.replace(/_micros$/, ''))), ' ', ...(quoted !== undefined ? [h('bdi', {}, shown)] : [shown])];
}

/**
 * The warning's lines as a list for a person, the request's fields (the lines the gate indents with
 * "- ") nested under the line before, and the lines exactly as the gate wrote them behind "Exactly as written".
 */
function detailList(lines: string[]): HTMLElement {
  const list = h('ul', { class: 'details' });
  let fields: HTMLElement | undefined;
  for (const line of lines) {
    const item = /^- (.*)$/s.exec(line);
    const parent = list.lastElementChild;
    if (item && parent) {
      if (!fields || fields.parentElement !== parent) parent.append((fields = h('ul', { class: 'fields' })));
      fields.append(h('li', {}, ...field(item[1]!)));
    } else list.append(h('li', {}, ...said(line)));
  }
  const exact = lines.some((line) => line.startsWith('- ')) ? h('details', { class: 'exact' }, h('summary', {}, 'Exactly as written'), h('pre', {}, lines.join('\n'))) : null;
  return h('div', {}, list, exact);
}

export interface Confirmable {
  tool: string;
  args: Record<string, unknown>;
}

/** The tool and exact arguments a warning may be confirmed with: its view data first, else what the caller knows. */
export function confirmable(warning: ToolResultLike, fallback?: Partial<Confirmable>): Confirmable | undefined {
  const shown = viewOf(warning);
  const tool = typeof shown.tool === 'string' ? shown.tool : fallback?.tool;
  const args = typeof shown.arguments === 'object' && shown.arguments !== null ? (shown.arguments as Record<string, unknown>) : fallback?.args;
  if (!tool || !args) return undefined;
  const { confirm: _confirm, ...exact } = args;
  return { tool, args: exact };
}

/** What a view that opens a card hears of it: the one confirmation sent, its answer (a campaign's new status, say), or Cancel. */
export interface Hooks {
  sent?(): void;
  answered?(result: ToolResultLike): void;
  cancelled?(): void;
}

/**
 * A card for `warning`. Without a tool and arguments to confirm with, it shows the warning and says to
 * answer in the chat: it never guesses them.
 */
export function confirmationPanel(view: View, warning: ToolResultLike, fallback?: Partial<Confirmable>, hooks: Hooks = {}): HTMLElement {
  const facts = factsOf(warning);
  const shown = viewOf(warning);
  const target = confirmable(warning, fallback);
  const details = Array.isArray(shown.details) ? shown.details.map(String) : [];
  const expires = typeof shown.expires_at === 'string' ? Date.parse(shown.expires_at) : NaN;
  const expired = Number.isFinite(expires) && Date.now() >= expires;
  const destructive = shown.destructive === true;
  const verb = typeof shown.verb === 'string' && shown.verb ? shown.verb : 'Approve';
  const status = h('p', { class: 'sending', role: 'status' });
  const approve = h('button', { type: 'button', class: `approve ${destructive ? 'danger' : 'primary'}` }, verb);
  const cancel = h('button', { type: 'button', class: 'cancel' }, 'Cancel');
  const canAct = target !== undefined && !expired;
  // Open, unless the host's height is short: then it folds, and the cost and buttons fit the first screen (app.ts fit).
  const request = h(
    'details',
    { class: 'request fold', open: true },
    h('summary', {}, h('h2', {}, details.some((line) => line.startsWith('- ')) ? 'What will be sent' : 'What it does')),
    details.length > 0 ? detailList(details) : h('pre', { class: 'warning-text' }, textOf(warning)),
  );
  const panel = h(
    'section',
    { class: `confirmation${destructive ? ' destructive' : ''}` },
    h('p', { class: 'kicker' }, 'Needs your approval · nothing sent yet'),
    h('h1', { class: 'action' }, ...said(String(facts.action ?? shown.action ?? 'Approve this call'))),
    typeof shown.daily_budget === 'number' ? h('p', { class: 'amount' }, 'Daily budget ', h('strong', {}, money(shown.daily_budget, true)), ' in the account currency') : null,
    h('p', { class: 'cost' }, h('span', { class: 'label' }, 'Cost'), ' ', h('span', { class: 'cost-value' }, ...said(String(facts.cost ?? shown.cost ?? 'not stated')))),
    typeof facts.earlier_attempt === 'string' ? h('p', { class: 'earlier' }, 'Earlier attempt: ', ...said(facts.earlier_attempt)) : null,
    request,
    h('p', { class: 'muted expiry' }, expiryLine(expires, expired)),
    canAct && shown.approval === 'form' ? h('p', { class: 'muted form-note' }, 'Your app then shows its own approval form: approve there to send. Nothing is sent before that.') : null,
    canAct ? h('div', { class: 'buttons' }, approve, cancel) : h('p', { class: 'muted' }, expired ? 'Ask again in the chat for a fresh warning.' : 'Answer in the chat to approve or cancel: this card was given no call to repeat.'),
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
  /** Once decided, the card folds to its outcome, with what was asked behind "What was asked", and focus moves there. */
  const settle = (answer: HTMLElement) => {
    const asked = h('details', { class: 'asked' }, h('summary', {}, 'What was asked'), ...[...panel.children].filter((child) => child !== status && !child.classList.contains('buttons')));
    for (const element of asked.querySelectorAll('.expiry, .form-note, .kicker')) element.remove();
    status.textContent = '';
    panel.replaceChildren(answer, asked, status);
    panel.classList.add('decided');
    answer.focus();
  };
  approve.addEventListener('click', async () => {
    if (!target || !decide()) return;
    // Left open past its expiry, the card sends nothing: the gate would refuse, and the person should know why.
    if (Number.isFinite(expires) && Date.now() >= expires) {
      panel.querySelector('.expiry')!.textContent = expiryLine(expires, true);
      panel.querySelector('.form-note')?.remove();
      panel.querySelector('.buttons')!.replaceWith(h('p', { class: 'muted' }, 'Ask again in the chat for a fresh warning.'));
      return;
    }
    status.textContent = 'Sending…';
    hooks.sent?.();
    const result = await view.call(target.tool, { ...target.args, confirm: true });
    const kind = kindOf(result);
    // A confirmation answered with another warning did not act: it is "not done", never "done".
    settle(outcome(kind === 'warning' ? 'refused' : kind, result));
    view.tell(`The person approved ${target.tool} in the confirmation card. ${TITLES[kind === 'warning' ? 'refused' : kind]}: ${oneLine(result)}`);
    hooks.answered?.(result);
  });
  cancel.addEventListener('click', () => {
    if (!decide()) return;
    settle(outcome('cancelled', 'nothing was sent; the warning lapses on its own.'));
    view.tell(`The person cancelled ${target?.tool ?? 'the call'} in the confirmation card: nothing was sent.`);
    hooks.cancelled?.();
  });
  return panel;
}

function expiryLine(expires: number, expired: boolean): string {
  if (!Number.isFinite(expires)) return 'The warning lapses 10 minutes after it was given.';
  return expired ? `This warning lapsed at ${timeWithZone(expires)}: nothing was sent.` : `Approve by ${timeWithZone(expires)}, when the warning lapses.`;
}
