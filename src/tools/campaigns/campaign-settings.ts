import { InputError, RefusedError } from '../../errors.js';
import { quote, sanitize } from '../../text.js';
import { money } from '../format.js';

/**
 * The pass-through `campaign_settings` of create_ad_campaign (issue 16, section 5). The warning
 * shows every key and value that is sent, so the object is bounded here; anything past a bound is
 * refused before the warning, naming the bound. Together the bounds keep the largest warning under
 * 2,000 tokens (test/budget.test.ts).
 */

/** Keys of every object plus items of every array, at all depths: a settings object, not a document. */
export const MAX_SETTINGS_ENTRIES = 20;
/** Objects and arrays inside campaign_settings: the ad platform's settings nest two levels at most. */
export const MAX_SETTINGS_DEPTH = 3;
/** Characters of one key: setting names are short identifiers. */
export const MAX_SETTING_KEY_CHARS = 40;
/** Characters of one string value: codes, enums and short labels, shown whole. */
export const MAX_SETTING_VALUE_CHARS = 100;
/** Characters of the whole object as JSON, so all of it fits in the warning at once. */
export const MAX_SETTINGS_JSON_CHARS = 800;

// Money-like names: *_micros, or a word budget, bid, amount or cost (camelCase and snake_case alike).
const MONEY_WORD = /^(budget|bid|amount|cost)s?$/;
const BUDGET_WORD = /^budgets?$/;

/** One value of the settings that is money: its path and value, shown in the warning's cost line. */
export interface MoneyValue {
  path: string;
  value: unknown;
}

const FIELD = 'campaign_settings';

/**
 * Checks the bounds and the money rules, and returns the money-like values to show.
 * @throws InputError naming the bound or rule broken; RefusedError for an amount above APPMGMT_MAX_DAILY_BUDGET_MICROS.
 */
export function checkSettings(settings: Record<string, unknown>, cap: number | undefined): MoneyValue[] {
  const json = JSON.stringify(settings);
  if (json.length > MAX_SETTINGS_JSON_CHARS) {
    throw new InputError(FIELD, `at most ${MAX_SETTINGS_JSON_CHARS} characters as JSON, so the warning can show all of it; it has ${json.length}`);
  }
  const found: MoneyValue[] = [];
  let entries = 0;
  // `key`: the nearest object key on the path (list items take their list's), which names the unit.
  const walk = (value: unknown, path: string, key: string, depth: number, money: boolean): void => {
    if (Array.isArray(value) || (value !== null && typeof value === 'object')) {
      if (depth > MAX_SETTINGS_DEPTH) throw new InputError(path, `nests deeper than ${MAX_SETTINGS_DEPTH} levels inside ${FIELD}`);
      const isList = Array.isArray(value);
      const pairs = isList ? value.map((item, i) => [`[${i}]`, item] as const) : Object.entries(value);
      entries += pairs.length;
      if (entries > MAX_SETTINGS_ENTRIES) {
        throw new InputError(FIELD, `at most ${MAX_SETTINGS_ENTRIES} keys and list items in all, nested ones included, so the warning can show every one`);
      }
      for (const [name, item] of pairs) {
        if (isList) walk(item, `${path}${name}`, key, depth + 1, money);
        else {
          checkKey(path, name);
          walk(item, `${path}.${name}`, name, depth + 1, money || moneyLike(name));
        }
      }
      return;
    }
    if (typeof value === 'string') checkString(path, value);
    if (money) found.push(checkMoney(path, key, value, cap));
  };
  walk(settings, FIELD, FIELD, 0, false);
  return found;
}

/** Is this key a money name? `bid_ceiling_micros`, `maxBid`, `totalCost`: yes; `bidding_goal`: no. */
export function moneyLike(key: string): boolean {
  const words = wordsOf(key);
  return words.at(-1) === 'micros' || words.some((word) => MONEY_WORD.test(word));
}

const wordsOf = (key: string) => key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);

function checkKey(path: string, key: string): void {
  if (key.length === 0 || key.length > MAX_SETTING_KEY_CHARS || !shownAsIs(key)) {
    throw new InputError(`${path} key ${quote(key, MAX_SETTING_KEY_CHARS)}`, `keys are 1 to ${MAX_SETTING_KEY_CHARS} characters of one-line plain text, so the warning shows them as sent`);
  }
  // A second daily budget could override the one the warning names (issue 16): only daily_budget_micros sets it.
  if (wordsOf(key).some((word) => BUDGET_WORD.test(word))) {
    throw new InputError(`${path}.${key}`, 'the budget is set by daily_budget_micros only; a budget inside campaign_settings is not sent. Remove it');
  }
}

function checkString(path: string, value: string): void {
  if (value.length > MAX_SETTING_VALUE_CHARS) {
    throw new InputError(path, `at most ${MAX_SETTING_VALUE_CHARS} characters per value inside ${FIELD}, so the warning shows it whole; it has ${value.length}`);
  }
  if (!shownAsIs(value)) {
    throw new InputError(path, 'must be one line of plain text (no control or invisible characters, no double quotes, no runs of spaces), so the warning shows it as sent');
  }
}

/** Text that quote() shows unchanged: what the person reads is what is sent. */
const shownAsIs = (text: string) => sanitize(text, MAX_SETTING_VALUE_CHARS) === text && quote(text, MAX_SETTING_VALUE_CHARS) === `"${text}"`;

/**
 * A money value must be a whole number of micros (its unit is then known) and within the cap.
 * @throws InputError for an amount of unknown unit; RefusedError above the cap.
 */
function checkMoney(path: string, key: string, value: unknown, cap: number | undefined): MoneyValue {
  const numeric = typeof value === 'number' || (typeof value === 'string' && /^\s*-?[\d.,]+\s*$/.test(value));
  if (!numeric) return { path, value };
  if (wordsOf(key).at(-1) !== 'micros' || typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new InputError(path, 'an amount inside campaign_settings must be a whole number in a key ending in _micros (1000000 = 1.00), so it can be shown and checked against APPMGMT_MAX_DAILY_BUDGET_MICROS');
  }
  if (cap !== undefined && value > cap) {
    throw new RefusedError(
      `Refused: ${path} ${value} (${money(value)}) is above the cap of ${cap} (${money(cap)}) set by APPMGMT_MAX_DAILY_BUDGET_MICROS on this server, which bounds every amount a campaign sends. Use a lower amount, or ask whoever runs the server to raise the cap. Nothing was sent.`,
      // The path names a key of the caller's settings: the trail says which cap, not which key.
      { audit: `an amount inside ${FIELD}, ${value}, is above the cap of ${cap} (APPMGMT_MAX_DAILY_BUDGET_MICROS)` },
    );
  }
  return { path, value };
}

/** The settings as sent: every key and value, in order, nested objects in braces. */
export function settingsText(settings: Record<string, unknown>): string {
  const show = (value: unknown): string => {
    if (Array.isArray(value)) return `[${value.map(show).join(', ')}]`;
    if (value !== null && typeof value === 'object') return `{${Object.entries(value).map(([key, item]) => `"${key}": ${show(item)}`).join(', ')}}`;
    return typeof value === 'string' ? `"${value}"` : String(JSON.stringify(value));
  };
  const count = Object.keys(settings).length;
  return `${count} ${count === 1 ? 'key' : 'keys'}: ${show(settings).slice(1, -1)}`;
}

/** The cost line's part for money inside the settings: every such value, by path. */
export function moneyText(values: MoneyValue[]): string {
  if (values.length === 0) return '';
  const shown = values.map(({ path, value }) =>
    typeof value === 'number' ? `${path} ${value} (${money(value)})` : `${path} ${typeof value === 'string' ? `"${value}"` : String(JSON.stringify(value))}`,
  );
  return `; also sent, money-like settings: ${shown.join(', ')}`;
}
