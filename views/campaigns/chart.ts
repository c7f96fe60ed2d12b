// The campaigns list's chart: spend and conversions per campaign as paired horizontal bars, each
// series scaled to its own largest figure, drawn in HTML so its text keeps the page's size at any
// width; rows whose metrics are pending say "pending" rather than show a zero.
import { h, named } from '../shared/dom.js';
import { count, money } from '../shared/format.js';
import type { List } from './rows.js';

/** One bar and its figure; `value` undefined means metrics pending (the zero means "not yet"). */
function bar(kind: 'spend' | 'conversions', value: number | undefined, max: number, shown: string): HTMLElement {
  const share = value !== undefined && max > 0 ? value / max : 0;
  const fill = h('span', { class: `bar ${kind}`, 'data-value': value === undefined ? 'pending' : String(value), 'data-share': share.toFixed(4) });
  fill.style.width = `${(share * 100).toFixed(2)}%`;
  // The bar's room is the track less its figure: lengths compare exactly against the largest.
  return h('span', { class: `track ${kind}` }, h('span', { class: 'room' }, fill), h('span', { class: `figure ${kind}` }, shown));
}

/** Spend and conversions per campaign as paired horizontal bars, each series scaled to its own largest figure. */
export function chart(list: List): HTMLElement {
  const known = list.rows.filter((row) => !list.pending.has(row.campaign_id));
  const maxSpend = Math.max(0, ...known.map((row) => row.cost ?? 0));
  const maxConversions = Math.max(0, ...known.map((row) => row.conversions ?? 0));
  return h(
    'figure',
    { class: 'spend-chart' },
    h('figcaption', {}, h('span', { class: 'key spend' }, 'Spend'), ' ', h('span', { class: 'key conversions' }, 'Conversions'), h('span', { class: 'muted scale' }, `Each bar against the largest: ${money(maxSpend)} spend, ${count(maxConversions)} conversions.`)),
    h(
      'ul',
      { class: 'pairs' },
      ...list.rows.map((row) => {
        const pending = list.pending.has(row.campaign_id);
        return h(
          'li',
          { class: 'pair', 'data-campaign': row.campaign_id },
          named(row.name || row.campaign_id, 'name'),
          bar('spend', pending ? undefined : (row.cost ?? 0), maxSpend, pending ? 'pending' : money(row.cost ?? 0)),
          bar('conversions', pending ? undefined : (row.conversions ?? 0), maxConversions, pending ? 'pending' : count(row.conversions ?? 0)),
        );
      }),
    ),
  );
}
