import type { Campaign } from '../../api/schemas.js';
import { InputError } from '../../errors.js';
import { idText, quote, sanitize } from '../../text.js';
import { DAYS_PER_MONTH, money } from '../format.js';

/** How the campaign tools show a campaign's status, budget and name, so they all read alike. */

/** The status, with REMOVED spelled out: it is how a deleted campaign stays listed. */
export function statusText(status: string): string {
  const shown = idText(sanitize(status, 30));
  return status === 'REMOVED' ? `${shown} (deleted, kept for reporting)` : shown;
}

/** What each status means for spend, in the words the model and the campaigns view both read. */
const STATUS_MEANING: Record<string, string> = {
  ENABLED: 'serving once the ad platform allows it; it spends up to about the daily budget each day',
  PAUSED: 'not serving; nothing new is spent until it is resumed',
  REMOVED: 'deleted for good; kept only for reporting and cannot be changed',
};

/** The status's meaning, or undefined for a status the service does not document (UNKNOWN, say). */
export function statusMeaning(status: string): string | undefined {
  return Object.hasOwn(STATUS_MEANING, status) ? STATUS_MEANING[status] : undefined;
}

/** "20.00 a day, roughly 608.00 a month". */
export function budgetText(micros: number): string {
  return `${money(micros)} a day, roughly ${money(monthly(micros))} a month`;
}

/** Micros in one cent of the account currency. */
const CENT_MICROS = 10_000;

/** A daily amount as a rough monthly one, in micros, rounded to whole cents: an estimate has no fractions of a cent. */
export function monthly(micros: number): number {
  return Math.round((micros * DAYS_PER_MONTH) / CENT_MICROS) * CENT_MICROS;
}

/** `cmp_1 ("Spring sale")`, or the bare id when the campaign has no name. */
export function campaignLabel(campaignId: string, campaign?: Pick<Campaign, 'campaign_name'>): string {
  const name = campaign?.campaign_name;
  return name ? `${idText(campaignId)} (${quote(name, 80)})` : idText(campaignId);
}

/** One unit of the account currency, in micros (spec 2.2). */
export const MICROS_PER_UNIT = 1_000_000;
/**
 * A daily amount below 0.01 of a unit is too small to be a daily budget in any currency: almost
 * surely units typed as micros (15 for 15.00, issue 17). Refused, with the likely meant value.
 */
export const MIN_PLAUSIBLE_DAILY_MICROS = 10_000;

/**
 * Refuses a daily amount that cannot be meant as micros, naming the likely meant one.
 * @throws InputError: "15 is 0.000015 a day …: 15000000 = 15.00 a day".
 */
export function checkPlausibleDaily(field: string, micros: number): void {
  if (micros >= MIN_PLAUSIBLE_DAILY_MICROS) return;
  const meant = micros * MICROS_PER_UNIT;
  throw new InputError(
    field,
    `${micros} is ${money(micros)} of the account currency a day, too small to be a daily budget. Amounts are micros (1000000 = 1.00): if ${micros} a day was meant, pass ${meant} = ${money(meant)} a day`,
  );
}

/** The cost line's note for a daily amount under one unit that is still a possible budget; '' otherwise. */
export function underOneUnit(micros: number): string {
  return micros < MICROS_PER_UNIT ? ` (under 1.00 a day: check this is meant; 1000000 micros = 1.00)` : '';
}
