// The campaigns view (list_ad_campaigns and get_ad_campaign): the campaigns as a table with a small
// chart of spend and conversions, or one campaign as a card; each status in the server's own words;
// pause (free, not gated: one call per press) and resume (gated: through the confirmation panel).
import { factsOf, startView, textOf, viewOf, type ToolResultLike, type View } from './shared/app.js';
import { confirmationPanel, isWarning, kindOf, outcome } from './shared/confirm.js';
import { byId, h, money, svg } from './shared/dom.js';

interface Row {
  campaign_id: string;
  name: string;
  type: string;
  status: string;
  daily_budget?: number;
  start_date?: string;
  cost?: number;
  conversions?: number;
}

interface StatusWords {
  status: string;
  shown: string;
  meaning?: string;
}

/** One page of list_ad_campaigns, or several pages joined as the person asks for more. */
interface List {
  appId: string;
  metrics: boolean;
  rows: Row[];
  statuses: Map<string, StatusWords>;
  pending: Set<string>;
  facts: Record<string, unknown>;
}

const main = byId('campaigns');
const str = (value: unknown): string => (typeof value === 'string' ? value : '');
const num = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
const count = (value: number): string => value.toLocaleString('en-US', { maximumFractionDigits: 2 });

// ---------------------------------------------------------------- list

function rowsOf(facts: Record<string, unknown>): Row[] {
  return Array.isArray(facts.campaigns) ? (facts.campaigns as Row[]) : [];
}

function statusesOf(shown: Record<string, unknown>): StatusWords[] {
  return Array.isArray(shown.statuses) ? (shown.statuses as StatusWords[]).filter((words) => typeof words?.status === 'string') : [];
}

function listOf(result: ToolResultLike, appId: string): List {
  const facts = factsOf(result);
  const shown = viewOf(result);
  const pending = Array.isArray(shown.metrics_pending) ? shown.metrics_pending.map(String) : [];
  return {
    appId,
    metrics: facts.metrics_included === true,
    rows: rowsOf(facts),
    statuses: new Map(statusesOf(shown).map((words) => [words.status, words])),
    pending: new Set(pending),
    facts,
  };
}

/** "ENABLED: serving once …" for each status shown, as get_ad_campaign's text says it. */
function statusLegend(list: List): HTMLElement {
  const present = new Set(list.rows.map((row) => row.status));
  const words = [...list.statuses.values()].filter((entry) => present.has(entry.status));
  return h(
    'ul',
    { class: 'statuses' },
    ...words.map((entry) => h('li', { 'data-status': entry.status }, h('span', { class: 'status', 'data-status': entry.status }, entry.shown), entry.meaning ? `: ${entry.meaning}.` : ': no meaning documented for this status.')),
  );
}

const CHART = {
  /** The chart's drawing width; the SVG scales to the view's width. */
  width: 400,
  /** Room for the campaign's name at the left of its bars. */
  label: 150,
  /** Room for the figure at the end of the longest bar. */
  value: 56,
  /** One campaign: a spend bar and a conversions bar, with a gap. */
  row: 26,
  /** A bar's thickness: two fit in a row with a line of text beside them. */
  bar: 9,
  /** Names longer than this are cut in the chart (the table has them whole). */
  nameChars: 22,
};

function shortName(row: Row): string {
  // By code points, so a cut never splits an emoji in half.
  const name = Array.from(row.name || row.campaign_id);
  return name.length > CHART.nameChars ? `${name.slice(0, CHART.nameChars - 1).join('')}…` : name.join('');
}

/** One bar and its figure; `value` undefined means metrics pending (the zero means "not yet"). */
function bar(kind: 'spend' | 'conversions', y: number, value: number | undefined, max: number, shown: string): SVGElement[] {
  const span = CHART.width - CHART.label - CHART.value;
  const length = value !== undefined && max > 0 ? (value / max) * span : 0;
  return [
    svg('rect', { class: `bar ${kind}`, x: CHART.label, y, width: length.toFixed(2), height: CHART.bar, 'data-value': value ?? 'pending' }),
    svg('text', { class: `figure ${kind}`, x: CHART.label + length + 4, y: y + CHART.bar - 1 }, shown),
  ];
}

/** Spend and conversions per campaign as paired horizontal bars, each series scaled to its own largest figure. */
function chart(list: List): HTMLElement {
  const known = list.rows.filter((row) => !list.pending.has(row.campaign_id));
  const maxSpend = Math.max(0, ...known.map((row) => row.cost ?? 0));
  const maxConversions = Math.max(0, ...known.map((row) => row.conversions ?? 0));
  const height = list.rows.length * CHART.row;
  const drawing = svg('svg', { class: 'chart', viewBox: `0 0 ${CHART.width} ${height}`, role: 'img', 'aria-label': 'Spend and conversions per campaign' });
  list.rows.forEach((row, index) => {
    const y = index * CHART.row;
    const pending = list.pending.has(row.campaign_id);
    const group = svg('g', { class: 'pair', 'data-campaign': row.campaign_id });
    const label = svg('text', { class: 'name', x: 0, y: y + CHART.bar + 3 }, shortName(row));
    label.append(svg('title', {}, row.name || row.campaign_id));
    group.append(
      label,
      ...bar('spend', y + 2, pending ? undefined : (row.cost ?? 0), maxSpend, pending ? 'pending' : money(row.cost ?? 0)),
      ...bar('conversions', y + 3 + CHART.bar, pending ? undefined : (row.conversions ?? 0), maxConversions, pending ? 'pending' : count(row.conversions ?? 0)),
    );
    drawing.append(group);
  });
  return h(
    'figure',
    { class: 'spend-chart' },
    h('figcaption', {}, h('span', { class: 'key spend' }, 'Spend'), ' ', h('span', { class: 'key conversions' }, 'Conversions'), ' ', h('span', { class: 'muted scale' }, `each scaled to its largest: ${money(maxSpend)} spend, ${count(maxConversions)} conversions`)),
    drawing as unknown as HTMLElement,
  );
}

/** The period as the result states it: the service names none, and the view does not guess one. */
function periodLine(list: List): HTMLElement {
  const period = str(list.facts.metrics_period) || 'not stated';
  const today = str(list.facts.today);
  const pending = list.pending.size > 0 ? ' Rows marked pending: their metrics are not available yet (the service reports zeros).' : '';
  return h('p', { class: 'muted period' }, `Totals for a period ${period}${today ? `; today is ${today} (UTC)` : ''}; spend in the account currency.${pending}`);
}

function heading(list: List): HTMLElement {
  const total = num(list.facts.count) ?? list.rows.length;
  const more = list.facts.more_may_exist === true ? ' The service returns at most 50 and does not say whether more exist.' : '';
  const shown = list.rows.length < total ? ` Showing ${list.rows.length}.` : '';
  return h(
    'header',
    {},
    h('h1', {}, `${total} campaign${total === 1 ? '' : 's'} on app ${list.appId}`),
    h('p', { class: 'muted count' }, `Most spend first.${shown}${more}`),
  );
}

function metricCells(list: List, row: Row): HTMLElement[] {
  if (!list.metrics) return [];
  if (list.pending.has(row.campaign_id)) return [h('td', { class: 'number spend muted' }, 'pending'), h('td', { class: 'number conversions muted' }, 'pending'), h('td', { class: 'number per-conversion muted' }, '—')];
  const cost = row.cost ?? 0;
  const conversions = row.conversions ?? 0;
  return [
    h('td', { class: 'number spend' }, money(cost)),
    h('td', { class: 'number conversions' }, count(conversions)),
    h('td', { class: 'number per-conversion' }, conversions > 0 ? money(cost / conversions) : '—'),
  ];
}

/** The button a campaign's status allows: Pause while ENABLED, Resume while PAUSED, none otherwise. */
function actionFor(view: View, appId: string, row: Pick<Row, 'campaign_id' | 'status'>, place: Place): HTMLElement | null {
  if (row.status === 'ENABLED') return pauseButton(view, appId, row.campaign_id, place);
  if (row.status === 'PAUSED') return resumeButton(view, appId, row.campaign_id, place);
  return null;
}

function rowElement(view: View, list: List, row: Row, place: Place): HTMLTableRowElement {
  return h(
    'tr',
    { 'data-campaign': row.campaign_id },
    h(
      'td',
      { class: 'campaign' },
      h('span', { class: 'name' }, row.name || '(no name)'),
      h('span', { class: 'muted meta' }, `${row.type} · ${row.campaign_id}`),
      h('div', { class: 'state' }, h('span', { class: 'status', 'data-status': row.status }, row.status), actionFor(view, list.appId, row, place)),
    ),
    h('td', { class: 'number budget' }, row.daily_budget !== undefined ? money(row.daily_budget) : 'not given'),
    ...metricCells(list, row),
  );
}

function table(view: View, list: List, legend: { current: HTMLElement }): HTMLElement {
  const columns = ['Campaign', 'Budget / day', ...(list.metrics ? ['Spend', 'Conv.', 'Per conv.'] : [])];
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
        if (read.isError) return place.add(h('p', { class: 'muted reread' }, `Could not read the campaign back: ${textOf(read)}`));
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
  const failed = (result: ToolResultLike) => notes.replaceChildren(outcome(kindOf(result), textOf(result)));
  const nextSkip = num(list.facts.next_skip);
  const total = num(list.facts.count) ?? list.rows.length;
  const buttons = h(
    'div',
    { class: 'buttons' },
    nextSkip !== undefined
      ? listButton(view, `Show the next campaigns (${total - nextSkip} more)`, { app_id: list.appId, ...(list.metrics ? { include_metrics: true } : {}), skip: nextSkip }, (result) => {
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
  main.replaceChildren(
    heading(list),
    ...(list.metrics ? [periodLine(list), ...(list.rows.length > 0 ? [chart(list)] : [])] : [h('p', { class: 'muted period' }, 'Metrics not requested: the service reports zeros for them.')]),
    ...(list.rows.length > 0 ? [table(view, list, legend), legend.current] : [h('p', { class: 'muted' }, 'No campaigns to show.')]),
    buttons,
    notes,
  );
}

// ---------------------------------------------------------------- actions

/** Where a campaign's action shows its panel and outcome, and how its figures are read again. */
interface Place {
  show(element: HTMLElement): void;
  add(element: HTMLElement): void;
  refresh(): Promise<void>;
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

// ---------------------------------------------------------------- one campaign

function field(label: string, ...value: Array<Node | string>): HTMLElement[] {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

function platformLine(facts: Record<string, unknown>): string {
  const primary = str(facts.primary_status);
  const reasons = Array.isArray(facts.primary_status_reasons) ? facts.primary_status_reasons.map(String) : [];
  if (!primary) return 'not given';
  return reasons.length > 0 ? `${primary} (${reasons.join(', ')})` : primary;
}

function geoLine(facts: Record<string, unknown>): string {
  const targets = Array.isArray(facts.geo_targets) ? facts.geo_targets.map(String) : [];
  const more = (num(facts.geo_target_count) ?? targets.length) - targets.length;
  return targets.length > 0 ? `${targets.join(', ')}${more > 0 ? `, …and ${more} more` : ''}` : 'none';
}

function card(view: View, result: ToolResultLike, appId: string, place: Place): HTMLElement {
  const facts = factsOf(result);
  const shown = viewOf(result);
  const status = str(facts.status);
  const meaning = str(shown.status_meaning);
  const adnet = str(facts.adnet_campaign_id);
  const budget = num(facts.daily_budget);
  return h(
    'article',
    { class: 'campaign-card', 'data-campaign': str(facts.campaign_id) },
    h('h1', { class: 'name' }, str(facts.name) || '(no name)'),
    h('p', { class: 'muted meta' }, `${str(facts.type)} · ${str(facts.campaign_id)} on app ${appId}`),
    h('p', { class: 'state' }, h('span', { class: 'status', 'data-status': status }, str(shown.status_text) || status), h('span', { class: 'meaning' }, meaning ? `: ${meaning}.` : '.')),
    h(
      'dl',
      {},
      ...field('Daily budget', h('span', { class: 'budget' }, str(shown.budget) || (budget !== undefined ? `${money(budget)} a day` : 'not given'))),
      ...field('Landing page', h('span', { class: 'landing' }, str(facts.landing_page) || 'none')),
      ...field('Ad platform', h('span', { class: 'primary' }, platformLine(facts))),
      ...field('Review', h('span', { class: 'review' }, str(facts.review_status) || 'not synced yet')),
      ...field('Serving', h('span', { class: 'serving' }, str(shown.serving) || str(facts.serving_status) || 'not given')),
      ...field('Adnet id', adnet || 'still being pushed to the ad platform'),
      ...field('Geo targets', geoLine(facts)),
      ...field('Phone', str(facts.phone_number) || 'none'),
      ...field('Learning', str(shown.learning) || 'not given'),
      ...field('Last changed', str(facts.updated_date) || 'unknown'),
    ),
    h('div', { class: 'buttons' }, actionFor(view, appId, { campaign_id: str(facts.campaign_id), status }, place)),
  );
}

function renderCard(view: View, result: ToolResultLike, appId: string): void {
  const activity = h('div', { class: 'activity' });
  let current: HTMLElement;
  const place: Place = {
    show: (element) => activity.replaceChildren(element),
    add: (element) => activity.append(element),
    async refresh() {
      const read = await view.call('get_ad_campaign', { app_id: appId, campaign_id: str(factsOf(result).campaign_id) });
      if (read.isError) return place.add(h('p', { class: 'muted reread' }, `Could not read the campaign back: ${textOf(read)}`));
      current.replaceWith((current = card(view, read, appId, place)));
    },
  };
  current = card(view, result, appId, place);
  main.replaceChildren(current, activity);
}

// ---------------------------------------------------------------- start

await startView('campaigns', (result, view) => {
  const facts = factsOf(result);
  const appId = str(viewOf(result).app_id) || str(view.toolArguments()?.app_id);
  if (result.isError) main.replaceChildren(outcome(kindOf(result), textOf(result)));
  else if (Array.isArray(facts.campaigns)) renderList(view, listOf(result, appId));
  else if (typeof facts.campaign_id === 'string') renderCard(view, result, appId);
  else main.replaceChildren(h('pre', {}, textOf(result)));
});
