import type { z } from 'zod';
import type { SimResponse } from './types.js';

/**
 * Error bodies. The spec gives only the validation body (2.9); for every other status we answer
 * `{detail: "<text>"}`, and an ad-platform rejection puts the platform's reason in `detail`.
 */

export const ok = (body: unknown): SimResponse => ({ status: 200, body });

export const fail = (status: number, detail: string, headers?: Record<string, string>): SimResponse =>
  headers ? { status, body: { detail }, headers } : { status, body: { detail } };

export const tooManyRequests = (detail: string, retryAfterSeconds: number): SimResponse =>
  fail(429, detail, { 'retry-after': String(retryAfterSeconds) });

export const READ_ONLY_REFUSED = fail(403, 'read_only_credential_route_not_allowed');

export interface ValidationItem {
  loc: string[];
  msg: string;
  type: string;
}

/**
 * The spec leaves the status of a validation failure open (section 7); the sandbox answers 422,
 * the status the 2.9 body shape `{detail: [{loc, msg, type}]}` comes with in the service's framework.
 */
export const VALIDATION_STATUS = 422;

export const invalid = (...items: ValidationItem[]): SimResponse => ({ status: VALIDATION_STATUS, body: { detail: items } });

/** Zod issues as 2.9 items, located under `body`. */
export function invalidBody(issues: readonly z.core.$ZodIssue[]): SimResponse {
  return invalid(
    ...issues.map((issue) => ({
      loc: ['body', ...issue.path.map(String)],
      msg: issue.message,
      type: issueType(issue),
    })),
  );
}

function issueType(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') return issue.message.endsWith('received undefined') ? 'missing' : `${issue.expected}_type`;
  if (issue.code === 'too_small') return 'too_short';
  if (issue.code === 'too_big') return 'too_long';
  if (issue.code === 'invalid_value') return 'enum';
  return 'value_error';
}

/** A JSON object body, or a 2.9 answer saying it is not one. */
export function objectBody(body: unknown): Record<string, unknown> | SimResponse {
  if (body !== null && typeof body === 'object' && !Array.isArray(body)) return body as Record<string, unknown>;
  return invalid({ loc: ['body'], msg: 'Input should be a valid JSON object', type: 'model_attributes_type' });
}

export const isResponse = (value: unknown): value is SimResponse =>
  value !== null && typeof value === 'object' && 'status' in value && typeof (value as SimResponse).status === 'number';
