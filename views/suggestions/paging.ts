// Paging through a campaign's suggestions: adding a page's rows (none twice) with the summary of how
// many are shown, the "Show N more" and "Show from the first" buttons, and the look-back that finds
// where the next page starts when suggestions were dismissed or applied elsewhere meanwhile. Each
// press of a button is one list_campaign_suggestions call (or, looking back, a few) through the host.
import type { ToolResultLike } from '../shared/app.js';
import { kindOf, outcome } from '../shared/confirm.js';
import { byId, h } from '../shared/dom.js';
import { count } from '../shared/format.js';
import { pageOf, SEVERITIES, type List, type Page } from './list.js';
import { row } from './rows.js';

const LIST_TOOL = 'list_campaign_suggestions';
/** Calls "Show more" makes looking further back for a row already shown, before it starts from the first. */
const MAX_ANCHOR_TRIES = 4;

/** The view's root (views/suggestions.html): the summary counts the rows still shown on the whole page. */
const main = byId('suggestions');

/** Adds a page's rows (none twice), and says how many are shown and how to reach the rest. */
export function append(list: List, page: Page, skipped: number): void {
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
      : `${count(page.count)} ${page.count === 1 ? 'suggestion' : 'suggestions'}, most severe first; ${count(shown)} shown here.`;
  list.footer.replaceChildren(...paging(list, page, skipped));
}

/** "Show N more" while the tool says there are more, and "Show from the first" when the model skipped some. */
function paging(list: List, page: Page, skipped: number): HTMLElement[] {
  const parts: HTMLElement[] = [];
  if (skipped > 0) {
    parts.push(h('p', { class: 'muted' }, `The first ${count(skipped)} were skipped in this call.`), loader(list, 'Show from the first', 'first', () => listPage(list, 0), true));
  }
  const { nextSkip } = page;
  if (nextSkip !== undefined) {
    const rest = Math.max(0, page.count - nextSkip);
    parts.push(loader(list, `Show ${count(rest)} more`, 'more', () => nextPage(list, Math.max(0, nextSkip - list.removed - list.pending)), false, skipped));
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
    status.replaceChildren(h('p', { class: 'muted', role: 'status' }, 'Loading…'));
    const result = await load();
    if (result.isError) {
      button.disabled = false;
      const kind = kindOf(result);
      return void status.replaceChildren(outcome(kind === 'unknown' ? 'unknown' : 'refused', result));
    }
    status.replaceChildren();
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
