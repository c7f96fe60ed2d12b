import type { Campaign } from '../../api/schemas.js';
import { idText, quote, sanitize } from '../../text.js';
import { DAYS_PER_MONTH, money } from '../format.js';

/** How the campaign tools show a campaign's status, budget and name, so they all read alike. */

/** The status, with REMOVED spelled out: it is how a deleted campaign stays listed. */
export function statusText(status: string): string {
  const shown = idText(sanitize(status, 30));
  return status === 'REMOVED' ? `${shown} (deleted, kept for reporting)` : shown;
}

/** "20.00 a day, roughly 608.00 a month". */
export function budgetText(micros: number): string {
  return `${money(micros)} a day, roughly ${money(monthly(micros))} a month`;
}

/** A daily amount as a rough monthly one, in micros. */
export function monthly(micros: number): number {
  return Math.round(micros * DAYS_PER_MONTH);
}

/** `cmp_1 ("Spring sale")`, or the bare id when the campaign has no name. */
export function campaignLabel(campaignId: string, campaign?: Pick<Campaign, 'campaign_name'>): string {
  const name = campaign?.campaign_name;
  return name ? `${idText(campaignId)} (${quote(name, 80)})` : idText(campaignId);
}
