// The campaigns view (list_ad_campaigns and get_ad_campaign): the campaigns as a table with a small
// chart of spend and conversions, or one campaign as a card; each status in words with its meaning;
// pause (free, not gated: one call per press) and resume (gated: through the confirmation panel).
// This entry starts the view and renders the list (heading, period, table, legend, paging and the
// metrics button); campaigns/ holds the chart, the actions, the card and the rows they all read.
import { factsOf, startView, viewOf, type ToolResultLike, type View } from './shared/app.js';
import { kindOf, outcome } from './shared/confirm.js';
import { byId, h, named } from './shared/dom.js';
import { count, money, when, words } from './shared/format.js';
import { actionFor, type Place } from './campaigns/actions.js';
import { renderCard } from './campaigns/card.js';
import { chart } from './campaigns/chart.js';
import { listOf, num, str, type List, type Row } from './campaigns/rows.js';

const main = byId('campaigns');

// ---------------------------------------------------------------- list

/** "Enabled: serving once …" for each status shown, in the meaning get_ad_campaign's text gives it. */
function statusLegend(list: List): HTMLElement {
  const present = new Set(list.rows.map((row) => row.status));
  const shown = [...list.statuses.values()].filter((entry) => present.has(entry.status));
  return h(
    'ul',
    { class: 'statuses' },
    ...shown.map((entry) => h('li', { 'data-status': entry.status }, h('span', { class: 'status', 'data-status': entry.status }, words(entry.status)), entry.meaning ? `: ${entry.meaning}.` : ': no meaning documented for this status.')),
  );
}

/** The period as the result states it: the service names none, and the view does not guess one. */
function periodLine(list: List): HTMLElement {
  const period = str(list.facts.metrics_period) || 'not stated';
  const today = when(list.facts.today);
  const pending = list.pending.size > 0 ? ' Rows marked pending: their metrics are not available yet (the service reports zeros).' : '';
  return h('p', { class: 'muted period' }, `Totals for a period ${period}${today ? `, as of ${today}` : ''}; amounts in the account currency.${pending}`);
}

function heading(view: View, list: List): HTMLElement {
  const total = num(list.facts.count) ?? list.rows.length;
  const more = list.facts.more_may_exist === true ? ' The service returns at most 50 and does not say whether more exist.' : '';
  const shown = list.rows.length < total ? ` Showing ${count(list.rows.length)}.` : '';
  return h(
    'header',
    {},
    h('h1', {}, `${count(total)} campaign${total === 1 ? '' : 's'} on app `, named(list.appId)),
    h('p', { class: 'muted count' }, `Most spend first.${shown}${more}`),
    list.rows.length > LONG_LIST ? view.fullscreenButton() : null,
  );
}

/** More rows than this make the list long: the view offers the host's fullscreen mode. */
const LONG_LIST = 6;

function metricCells(list: List, row: Row): HTMLElement[] {
  if (!list.metrics) return [];
  if (list.pending.has(row.campaign_id)) return [h('td', { class: 'number spend muted', 'data-label': 'Spend' }, 'pending'), h('td', { class: 'number conversions muted', 'data-label': 'Conversions' }, 'pending'), h('td', { class: 'number per-conversion muted', 'data-label': 'Per conversion' }, '—')];
  const cost = row.cost ?? 0;
  const conversions = row.conversions ?? 0;
  return [
    h('td', { class: 'number spend', 'data-label': 'Spend' }, money(cost)),
    h('td', { class: 'number conversions', 'data-label': 'Conversions' }, count(conversions)),
    h('td', { class: 'number per-conversion', 'data-label': 'Per conversion' }, conversions > 0 ? money(cost / conversions) : '—'),
  ];
}

function rowElement(view: View, list: List, row: Row, place: Place): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-campaign': row.campaign_id },
    h(
      'td',
      { class: 'campaign' },
      named(row.name || '(no name)', 'name'),
      h('span', { class: 'muted meta' }, `${words(row.type)} · `, named(row.campaign_id)),
      h('div', { class: 'state' }, h('span', { class: 'status', 'data-status': row.status }, words(row.status)), actionFor(view, list.appId, row, place)),
    ),
    h('td', { class: 'number budget', 'data-label': 'Budget a day' }, row.daily_budget !== undefined ? money(row.daily_budget) : 'not given'),
    ...metricCells(list, row),
  );
}

function table(view: View, list: List, legend: { current: HTMLElement }): HTMLElement {
  const columns = ['Campaign', 'Budget a day', ...(list.metrics ? ['Spend', 'Conversions', 'Per conversion'] : [])];
  const body = h('tbody', {});
  const width = columns.length;
  for (const row of list.rows) {
    const detail = h('tr', { class: 'detail', hidden: true }, h('td', { colspan: String(width) }));
    const place: Place = {
      show(element) {
        detail.hidden = false;
        detail.firstElementChild!.replaceChildren(element);
      },
      add(element) {
        detail.hidden = false;
        detail.firstElementChild!.append(element);
      },
      async refresh() {
        const read = await view.call('get_ad_campaign', { app_id: list.appId, campaign_id: row.campaign_id });
        if (read.isError) return place.add(outcome('refused', read));
        const facts = factsOf(read);
        const shown = viewOf(read);
        row.status = str(facts.status) || row.status;
        row.daily_budget = num(facts.daily_budget) ?? row.daily_budget;
        list.statuses.set(row.status, { status: row.status, shown: str(shown.status_text) || row.status, ...(str(shown.status_meaning) ? { meaning: str(shown.status_meaning) } : {}) });
        current.replaceWith((current = rowElement(view, list, row, place)));
        legend.current.replaceWith((legend.current = statusLegend(list)));
      },
    };
    let current = rowElement(view, list, row, place);
    body.append(current, detail);
  }
  return h('table', { class: 'campaigns' }, h('thead', {}, h('tr', {}, ...columns.map((column, index) => h('th', index >= 1 ? { class: 'number' } : {}, column)))), body);
}

/** A button that calls list_ad_campaigns again through the host, once per press. */
function listButton(view: View, label: string, args: Record<string, unknown>, onResult: (result: ToolResultLike) => void, className: string): HTMLElement {
  const button = h('button', { type: 'button', class: className }, label);
  button.addEventListener('click', async () => {
    if (button.disabled) return;
    button.disabled = true;
    onResult(await view.call('list_ad_campaigns', args));
  });
  return button;
}

function renderList(view: View, list: List): void {
  const legend = { current: statusLegend(list) };
  const notes = h('div', { class: 'notes' });
  const failed = (result: ToolResultLike) => notes.replaceChildren(outcome(kindOf(result) === 'unknown' ? 'unknown' : 'refused', result));
  const nextSkip = num(list.facts.next_skip);
  const total = num(list.facts.count) ?? list.rows.length;
  const buttons = h(
    'div',
    { class: 'buttons' },
    nextSkip !== undefined
      ? listButton(view, `Show the next campaigns (${count(total - nextSkip)} more)`, { app_id: list.appId, ...(list.metrics ? { include_metrics: true } : {}), skip: nextSkip }, (result) => {
          if (result.isError) return failed(result);
          const page = listOf(result, list.appId);
          for (const [status, words] of page.statuses) list.statuses.set(status, words);
          const seen = new Set(list.rows.map((row) => row.campaign_id));
          renderList(view, { ...list, rows: [...list.rows, ...page.rows.filter((row) => !seen.has(row.campaign_id))], pending: new Set([...list.pending, ...page.pending]), facts: page.facts });
        }, 'more')
      : null,
    list.metrics
      ? null
      : listButton(view, 'Show spend and conversions', { app_id: list.appId, include_metrics: true }, (result) => (result.isError ? failed(result) : renderList(view, listOf(result, list.appId))), 'show-metrics'),
  );
  // What matters first: the campaigns, their status and spend; then the chart and what each status means.
  main.replaceChildren(
    heading(view, list),
    list.metrics ? periodLine(list) : h('p', { class: 'muted period' }, 'Metrics not requested: the service reports zeros for them.'),
    ...(list.rows.length > 0 ? [table(view, list, legend), buttons, ...(list.metrics ? [chart(list)] : []), legend.current] : [h('p', { class: 'muted' }, 'No campaigns to show.'), buttons]),
    notes,
  );
}

// ---------------------------------------------------------------- start

await startView(
  'campaigns',
  {
    result(result, view) {
      const facts = factsOf(result);
      const appId = str(viewOf(result).app_id) || str(view.toolArguments()?.app_id);
      const kind = kindOf(result);
      if (kind !== 'done') main.replaceChildren(outcome(kind === 'warning' ? 'refused' : kind, result));
      else if (Array.isArray(facts.campaigns)) renderList(view, listOf(result, appId));
      else if (typeof facts.campaign_id === 'string') renderCard(main, view, result, appId);
      else main.replaceChildren(outcome('done', result));
    },
    cancelled() {
      main.replaceChildren(outcome('cancelled', 'the listing was cancelled before it answered.'));
    },
  },
  { fullscreen: true },
);
