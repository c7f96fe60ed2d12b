import { createHash } from 'node:crypto';
import { InputError } from '../errors.js';

/** Arguments larger than this are refused before anything is remembered or sent: no tool needs more. */
export const MAX_ARGUMENT_BYTES = 64 * 1024;

/** JSON with sorted keys, so argument order never changes the identity of a call. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The identity of a call: a hash of who asks (`scope`; empty for the one user of a stdio server),
 * the tool and its canonical arguments. The gate remembers this hash, never the arguments.
 * @throws InputError when the arguments are over 64 KiB of JSON.
 */
export function callKey(scope: string, tool: string, args: unknown): string {
  const json = checkedCanonical(args);
  return createHash('sha256').update(scope).update('\u0000').update(tool).update('\u0000').update(json).digest('hex');
}

/**
 * The canonical JSON of a call's arguments.
 * @throws InputError when it is over 64 KiB.
 */
export function checkedCanonical(args: unknown): string {
  const json = canonical(args);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_ARGUMENT_BYTES) {
    throw new InputError('arguments', `are ${Math.ceil(bytes / 1024)} KiB of JSON; at most ${MAX_ARGUMENT_BYTES / 1024} KiB are accepted`);
  }
  return json;
}

/** The slot that remembers a scope's latest warning for one tool (to say "the arguments differ"). */
export function lastWarningSlot(scope: string, tool: string): string {
  return createHash('sha256').update(scope).update('\u0000').update(tool).digest('hex');
}
