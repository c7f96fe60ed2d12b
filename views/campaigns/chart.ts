// The campaigns list's chart: spend and conversions per campaign as paired horizontal SVG bars, each
// series scaled to its own largest figure, with rows whose metrics are pending drawn as "pending"
// rather than as zero. Names are drawn as SVG text (never HTML), cut to fit, whole in a tooltip.
import { h, money, svg } from '../shared/dom.js';
import { count, type List, type Row } from './rows.js';

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
export function chart(list: List): HTMLElement {
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
