// One suggestion's row in the suggestions view: its title (or id), source, description, what it
// would do (action, proposed budget, campaigns, id), and the Dismiss and Apply buttons it offers, or
// the note that a budget recommendation for a campaign not managed here can only be applied elsewhere,
// or that an action no tool carries out is done in the service.
import { h, named } from '../shared/dom.js';
import { money, words } from '../shared/format.js';
import { applicable, applyButton, dismissButton } from './actions.js';
import type { Fact, List, Prose } from './list.js';

/** One suggestion: what it says, what it would do, and what can be done with it here. */
export function row(list: List, fact: Fact, prose: Prose | undefined): HTMLElement {
  const source = [fact.source === 'adnet' ? 'Ad platform (adnet)' : 'Service', ...(fact.recommendation_type ? [' · ', named(words(fact.recommendation_type))] : [])];
  const result = h('div', { class: 'row-result' });
  const item = h(
    'li',
    { class: 'suggestion', 'data-id': fact.id },
    h('div', { class: 'row-head' }, named(prose?.title || fact.id, 'title'), h('span', { class: 'source', 'data-source': fact.source ?? 'service' }, ...source)),
    prose?.description ? h('p', { class: 'description', dir: 'auto' }, prose.description) : null,
    h('p', { class: 'meta' }, ...metaParts(fact)),
    h('details', { class: 'ids' }, h('summary', {}, 'Ids'), h('p', { class: 'id' }, fact.id)),
  );
  const buttons = h('div', { class: 'buttons' });
  if (prose?.dismissable) buttons.append(dismissButton(list, fact, item, result));
  const apply = applicable(list, fact);
  if (apply) buttons.append(applyButton(list, apply, item, result));
  else if (fact.recommendation_resource_name) buttons.append(h('span', { class: 'muted elsewhere' }, 'Not for a campaign managed here: it can only be applied at the ad platform.'));
  // Issue 29: no tool carries out the service's own actions (edit_budget, edit_sitelinks, improve_assets, open_campaign).
  else if (fact.action) buttons.append(h('span', { class: 'muted in-service' }, 'Done in the service: no button here does it.'));
  if (buttons.childElementCount > 0) item.append(buttons);
  item.append(result);
  return item;
}

function metaParts(fact: Fact): Array<HTMLElement | string> {
  const parts: Array<HTMLElement | string> = [h('span', { class: 'action-name' }, fact.action ? words(fact.action) : 'No action')];
  if (typeof fact.daily_budget === 'number') parts.push(' · ', h('span', { class: 'budget' }, `proposed daily budget ${money(fact.daily_budget)}`));
  // The facts name campaigns only when they are not just this one.
  if (fact.campaign_ids) parts.push(' · ', h('span', { class: 'campaigns' }, 'on ', ...fact.campaign_ids.flatMap((id, index) => [index ? ', ' : '', named(id)])));
  return parts;
}
