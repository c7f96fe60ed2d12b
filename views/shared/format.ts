// Numbers, amounts and times as the person reads them: in the host's locale and the person's time
// zone (hostContext.locale and timeZone, else the browser's own), with the zone named. The service
// never names its currency, so amounts are in "the account currency", in its units: never micros.
import type { HostContext } from './bridge.js';

let locale: string | undefined;
let timeZone: string | undefined;

/** Follows the host's locale and time zone; called at connect and on every context change. */
export function setFormat(context: HostContext): void {
  locale = validLocale(context.locale) ?? locale;
  timeZone = validZone(context.timeZone) ?? timeZone;
}

function validLocale(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    return Intl.getCanonicalLocales(value)[0];
  } catch {
    return undefined;
  }
}

function validZone(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return value;
  } catch {
    return undefined;
  }
}

/** The person's time zone: the host's, else the browser's. */
export const zone = (): string => timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;

/**
 * An amount in units of the account currency: two decimals, grouped, as the locale writes them. An
 * `exact` amount (a budget as sent) keeps up to six, as the server writes it: 0.015 is not 0.02.
 */
export const money = (units: number, exact = false): string =>
  new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: exact ? 6 : 2 }).format(units);

// An amount as the server writes it inside a sentence (src/tools/format.ts money: ungrouped, a point,
// two to six decimals), and the service's statuses and campaign types (API spec 2.3) as it writes them.
const AMOUNT = /(?<![\w.,])\d+\.\d{2,6}(?!\w|[.,]\d)/g;
const ENUM = /\b(ENABLED|PAUSED|REMOVED|PERFORMANCE_MAX|SMART|SEARCH|DISPLAY|SHOPPING|VIDEO|DEMAND_GEN|LOCAL)\b/g;

/**
 * A sentence of the server's ("daily budget 1234.50 …, status ENABLED") for a person: each amount as
 * the locale writes it, grouped, its decimals kept (0.015 is not 0.02), statuses and types in words.
 */
export const forPerson = (text: string): string =>
  text
    .replace(AMOUNT, (figure) => new Intl.NumberFormat(locale, { minimumFractionDigits: 2, maximumFractionDigits: figure.length - figure.indexOf('.') - 1 }).format(Number(figure)))
    .replace(ENUM, (code) => code.replace('_', ' ').toLowerCase());

/** A count or figure, grouped, at most two decimals. */
export const count = (value: number): string => new Intl.NumberFormat(locale, { maximumFractionDigits: 2 }).format(value);

const parts = (ms: number, options: Intl.DateTimeFormatOptions) => new Intl.DateTimeFormat(locale, { timeZone: zone(), ...options }).format(new Date(ms));

/** "9:10 AM" (en-US) or "09:10" (de-DE) in the person's zone. */
export const time = (ms: number): string => parts(ms, { hour: 'numeric', minute: '2-digit' });

/** "9:10 AM UTC", "10:10 MEZ": the time with the zone named, as the locale writes it. */
export const timeWithZone = (ms: number): string => parts(ms, { hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });

/** "Mon 2 Nov" (with `weekday`) or "2 Nov", in the person's zone. */
export const day = (ms: number, weekday = true): string => parts(ms, { ...(weekday ? { weekday: 'short' } : {}), day: 'numeric', month: 'short' });

/** "Nov 2, 2026, 9:10 AM UTC", as the locale orders it. */
export const dateTime = (ms: number): string => parts(ms, { day: 'numeric', month: 'short', year: 'numeric', hour: 'numeric', minute: '2-digit', timeZoneName: 'short' });

/** An ISO instant or date from the service, shown for a person; the text as given when it is not one. */
export function when(value: unknown): string {
  if (typeof value !== 'string' || value === '') return '';
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return value;
  return /^\d{4}-\d{2}-\d{2}$/.test(value) ? new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(ms)) : dateTime(ms);
}

/** An enum or field name the service writes as code ("PERFORMANCE_MAX", "edit_budget") as words ("Performance max", "Edit budget"). */
export function words(value: string): string {
  if (!/^[A-Z0-9_]+$/.test(value) && !/^[a-z0-9]+(_[a-z0-9]+)+$/.test(value)) return value;
  const lower = value.replace(/_/g, ' ').toLowerCase();
  return lower.charAt(0).toUpperCase() + lower.slice(1);
}
