// Campaign suggestions (MCP Apps view of list_campaign_suggestions): every suggestion by severity with
// its title and description (view data: the facts leave that prose out), the rest of the list one
// page at a time through the tool's own skip, Dismiss, and Apply for budget recommendations through
// the confirmation panel (the gate decides, as for any call).
// This file starts the view and draws the page; suggestions/ holds the result read into rows
// (list.ts), the paging with its look-back (paging.ts), one row (rows.ts) and its actions (actions.ts).
import { startView, type ToolResultLike, type View } from './shared/app.js';
import { kindOf, outcome } from './shared/confirm.js';
import { byId, h, named } from './shared/dom.js';
import { LABELS, pageOf, SEVERITIES, type List } from './suggestions/list.js';
import { append } from './suggestions/paging.js';

const main = byId('suggestions');

await startView(
  'suggestions',
  {
    result: (result, view) => render(result, view),
    cancelled: () => main.replaceChildren(outcome('cancelled', 'the listing was cancelled before it answered.')),
  },
  { fullscreen: true },
);

/** More suggestions than this make the page long: the view offers the host's fullscreen mode. */
const LONG_LIST = 5;

function render(result: ToolResultLike, view: View): void {
  const kind = kindOf(result);
  if (kind !== 'done') return void main.replaceChildren(outcome(kind === 'warning' ? 'refused' : kind, result));
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
    summary: h('p', { class: 'summary', role: 'status' }),
    footer: h('div', { class: 'footer' }),
  };
  const notice = page.adnetIncluded
    ? []
    : [h('p', { class: 'muted notice' }, 'None came from the ad platform (adnet): it may have been unreachable, and the answer does not say so; opening the list again later may add them.')];
  main.replaceChildren(
    h('h1', {}, 'Suggestions for campaign ', named(page.campaignId)),
    list.summary,
    ...(page.count > LONG_LIST ? [view.fullscreenButton()].filter((button) => button !== null) : []),
    ...notice,
    h('p', { class: 'muted hint' }, 'Dismiss hides a suggestion for everyone in the workspace and cannot be undone; it asks once first. Apply changes a daily budget only after you approve the cost.'),
    ...SEVERITIES.map((severity) => h('section', { class: 'group', 'data-severity': severity, hidden: true }, h('h2', {}, LABELS[severity]), list.groups[severity])),
    list.footer,
  );
  const skipped = typeof args.skip === 'number' && args.skip > 0 ? args.skip : 0;
  append(list, page, skipped);
}
