import { InputError } from '../../errors.js';
import type { StatusHints } from '../../errors.js';

/** Shared by the social-calendar tools: times, the status our tools read as "approved", credential hints. */

export const DAY_MS = 86_400_000;

/**
 * Service facts document `proposal`, `scheduled` and `failed` and say others exist. Our choice: a post
 * approved but not yet handed over for publishing has status `approved` (the sandbox shows it so);
 * start_scheduling_posts takes exactly these.
 */
export const APPROVED = 'approved';

/** Service facts: more eligible posts than this in range is a 422. */
export const MAX_PER_RUN = 100;

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?)?$/i;

/**
 * An ISO 8601 date (midnight UTC) or instant in epoch ms; without an offset it is UTC, as the service
 * reads a naive time.
 * @throws InputError naming the field.
 */
export function instantOf(field: string, text: string): number {
  const value = text.trim();
  const day = Date.parse(value.slice(0, 10));
  // Date.parse rolls 30 February over into March: a real date reads back the same.
  const realDay = Number.isFinite(day) && new Date(day).toISOString().startsWith(value.slice(0, 10));
  const zoned = value.length > 10 && !/(Z|[+-]\d{2}:\d{2})$/i.test(value) ? `${value}Z` : value;
  const ms = Date.parse(zoned);
  if (!ISO_8601.test(value) || !realDay || !Number.isFinite(ms)) {
    throw new InputError(field, 'must be an ISO 8601 date or instant, such as 2026-11-02 or 2026-11-02T09:00:00Z');
  }
  return ms;
}

/** Both ends of a half-open range, checked locally. @throws InputError naming the end that is wrong. */
export function rangeOf(fromField: string, from: string | undefined, untilField: string, until: string | undefined) {
  const start = from === undefined ? undefined : instantOf(fromField, from);
  const end = until === undefined ? undefined : instantOf(untilField, until);
  if (start !== undefined && end !== undefined && end <= start) {
    throw new InputError(untilField, `must be after ${fromField} (the range is half-open: [${fromField}, ${untilField}))`);
  }
  return { start, end };
}

/** `2026-11-02T09:00:00Z`: UTC, milliseconds only when there are some. */
export function isoOf(ms: number): string {
  return new Date(ms).toISOString().replace('.000Z', 'Z');
}

export const floorDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;

const CREDENTIAL =
  'Social-calendar calls use APPMGMT_API_KEY (a personal API key) when it is set, else APPMGMT_ACCESS_TOKEN';

/** What 401 and 403 mean on every social-calendar operation. */
export const SOCIAL_CREDENTIAL_HINTS: StatusHints = {
  401: `The credential is missing, invalid or expired. ${CREDENTIAL}: set one of them to a valid personal credential.`,
  403: `Not allowed: the credential may not do this on this app (workspace API keys are refused). ${CREDENTIAL}: use a personal one with access to the app.`,
};
