// The one-campaign card (get_ad_campaign): name, status in words with what it means, budget a day and
// a month, landing page, ad platform and review statuses, targets and the rest of the record, with the
// action the status allows; after an action, the card is read again and redrawn in place while the
// action's outcome stays below it.
import { factsOf, viewOf, type ToolResultLike, type View } from '../shared/app.js';
import { outcome } from '../shared/confirm.js';
import { h, named } from '../shared/dom.js';
import { money, when, words } from '../shared/format.js';
import { actionFor, type Place } from './actions.js';
import { monthly, num, str } from './rows.js';

function field(label: string, ...value: Array<Node | string>): HTMLElement[] {
  return [h('dt', {}, label), h('dd', {}, ...value)];
}

function platformLine(facts: Record<string, unknown>): string {
  const primary = str(facts.primary_status);
  const reasons = Array.isArray(facts.primary_status_reasons) ? facts.primary_status_reasons.map((reason) => words(String(reason))) : [];
  if (!primary) return 'not given';
  return reasons.length > 0 ? `${words(primary)} (${reasons.join(', ')})` : words(primary);
}

function geoLine(facts: Record<string, unknown>): string {
  const targets = Array.isArray(facts.geo_targets) ? facts.geo_targets.map(String) : [];
  const more = (num(facts.geo_target_count) ?? targets.length) - targets.length;
  return targets.length > 0 ? `${targets.join(', ')}${more > 0 ? `, and ${more} more` : ''}` : 'none';
}

function card(view: View, result: ToolResultLike, appId: string, place: Place): HTMLElement {
  const facts = factsOf(result);
  const shown = viewOf(result);
  const status = str(facts.status);
  const meaning = str(shown.status_meaning);
  const adnet = str(facts.adnet_campaign_id);
  const budget = num(facts.daily_budget);
  const name = str(facts.name);
  return h(
    'article',
    { class: 'campaign-card', 'data-campaign': str(facts.campaign_id) },
    h('h1', { class: 'name' }, named(name || '(no name)')),
    h('p', { class: 'muted meta' }, `${words(str(facts.type))} campaign · `, named(str(facts.campaign_id)), ' on app ', named(appId)),
    h('p', { class: 'state' }, h('span', { class: 'status', 'data-status': status }, words(status)), h('span', { class: 'meaning' }, meaning ? `: ${meaning}.` : '.')),
    h('div', { class: 'buttons' }, actionFor(view, appId, { campaign_id: str(facts.campaign_id), status, name }, place)),
    h(
      'dl',
      {},
      ...field('Daily budget', h('span', { class: 'budget' }, budget !== undefined ? `${money(budget)} a day, about ${money(monthly(budget))} a month` : 'not given')),
      ...field('Landing page', h('span', { class: 'landing' }, str(facts.landing_page) || 'none')),
      ...field('Ad platform', h('span', { class: 'primary' }, platformLine(facts))),
      ...field('Review', h('span', { class: 'review' }, str(facts.review_status) ? words(str(facts.review_status)) : 'not synced yet')),
      ...field('Serving', h('span', { class: 'serving' }, str(shown.serving) || words(str(facts.serving_status)) || 'not given')),
      ...field('Adnet id', adnet || 'still being pushed to the ad platform'),
      ...field('Geo targets', geoLine(facts)),
      ...field('Phone', str(facts.phone_number) || 'none'),
      ...field('Learning', str(shown.learning) || 'not given'),
      ...field('Last changed', when(facts.updated_date) || 'unknown'),
    ),
  );
}

/** Fills `main` with the card of one get_ad_campaign result, and below it the place its action reports in. */
export function renderCard(main: HTMLElement, view: View, result: ToolResultLike, appId: string): void {
  const activity = h('div', { class: 'activity' });
  let current: HTMLElement;
  const place: Place = {
    show: (element) => activity.replaceChildren(element),
    add: (element) => activity.append(element),
    async refresh() {
      const read = await view.call('get_ad_campaign', { app_id: appId, campaign_id: str(factsOf(result).campaign_id) });
      if (read.isError) return place.add(outcome('refused', read));
      current.replaceWith((current = card(view, read, appId, place)));
    },
  };
  current = card(view, result, appId, place);
  main.replaceChildren(current, activity);
}
