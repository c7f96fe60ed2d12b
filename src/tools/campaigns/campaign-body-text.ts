import { sentText } from '../../text.js';
import { money, plural } from '../format.js';
import { settingsText } from './campaign-settings.js';
import { placeOf } from './geo-targets.js';

/** The request body of create_ad_campaign as its warning shows it, field by field. */

/**
 * Characters each field of the warning may take; past them, a list ends with a count of the rest.
 * Ad-platform-sized inputs fit whole (15 headlines of 30 characters, 5 descriptions of 90); the
 * largest request the inputs allow stays under 2,000 tokens (test/budget.test.ts).
 */
const FIELD_CHARS: Record<string, number> = {
  keyword_themes: 400,
  geo_targets: 300,
  images: 500,
  sitelinks: 600,
  headlines: 600,
  descriptions: 550,
};
const DEFAULT_FIELD_CHARS = 300;

/** One field as the warning shows it; `whole` is false when the display had to shorten or clean it. */
interface Shown {
  text: string;
  whole: boolean;
}

/** A caller's string as the JSON that sends it; whole unless longer than `room`. */
const shownString = (value: string, room: number): Shown => sentText(value, room);

/**
 * Every field of the body that will be sent, one line each, strings as the JSON that sends them.
 * campaign_settings is always shown whole (its bounds are checked before); a typed field too long
 * for its room shows its first items and a count, and the heading then names it instead of claiming
 * the lines are exactly what is sent.
 */
export function bodyLines(body: Record<string, unknown>): string[] {
  const lines: string[] = [];
  const shortened: string[] = [];
  for (const [name, value] of Object.entries(body)) {
    const shown = fieldText(name, value);
    if (!shown.whole) shortened.push(name);
    lines.push(`- ${name}: ${shown.text}`);
  }
  const heading = shortened.length
    ? `Request body (what is sent; shortened here, sent in full as given: ${shortened.join(', ')}):`
    : 'Request body (exactly what is sent):';
  return [heading, ...lines];
}

function fieldText(name: string, value: unknown): Shown {
  const room = FIELD_CHARS[name] ?? DEFAULT_FIELD_CHARS;
  if (name === 'campaign_settings') return { text: settingsText(value as Record<string, unknown>), whole: true };
  if (name === 'daily_budget_micros') return { text: `${value} (${money(value as number)} a day)`, whole: true };
  if (name === 'geo_targets') return geoText(value as string[], room);
  if (name === 'images') {
    return list(value as Array<{ kind: string; url: string }>, room, (image) => {
      const url = shownString(image.url, 80);
      return { text: `${image.kind} ${url.text}`, whole: url.whole };
    });
  }
  if (name === 'sitelinks') {
    return list(value as Array<{ text: string; url: string }>, room, (link) => {
      const [text, url] = [shownString(link.text, 30), shownString(link.url, 60)];
      return { text: `${text.text} -> ${url.text}`, whole: text.whole && url.whole };
    });
  }
  if (Array.isArray(value)) return list(value as string[], room, (item) => shownString(item, 95));
  if (typeof value === 'string') return shownString(value, name === 'campaign_name' ? 255 : room);
  return { text: JSON.stringify(value), whole: true };
}

/**
 * Geo targets are numeric ids (checked before), shown as sent, each well-known one with its place:
 * "2 items: 2840 = United States, 1014221 (…)". Ids the table does not know are said to be unnamed, not guessed.
 */
function geoText(ids: string[], room: number): Shown {
  const shown = list(ids, room, (id) => ({ text: placeOf(id) ? `${id} = ${placeOf(id)}` : id, whole: true }));
  const unnamed = ids.filter((id) => !placeOf(id)).length;
  if (unnamed === 0) return shown;
  return { ...shown, text: `${shown.text} (${plural(unnamed, 'id')} without a name: not a country this server knows; the ad platform's geo target list names ${unnamed === 1 ? 'it' : 'them'})` };
}

/** "N items: a, b, …and K more": as many items as fit in `room` characters, then a count. */
function list<T>(items: T[], room: number, show: (item: T) => Shown): Shown {
  const shown: string[] = [];
  let whole = true;
  let used = 0;
  for (const item of items) {
    const one = show(item);
    if (shown.length > 0 && used + one.text.length > room) break;
    shown.push(one.text);
    whole &&= one.whole;
    used += one.text.length + 2;
  }
  const more = items.length - shown.length;
  return { text: `${plural(items.length, 'item')}: ${shown.join(', ')}${more > 0 ? `, …and ${more} more` : ''}`, whole: whole && more === 0 };
}
