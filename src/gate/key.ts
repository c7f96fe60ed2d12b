import { nodeCrypto } from '../node-crypto.js';
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
  return nodeCrypto().createHash('sha256').update(scope).update('\u0000').update(tool).update('\u0000').update(json).digest('hex');
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
  return nodeCrypto().createHash('sha256').update(scope).update('\u0000').update(tool).digest('hex');
}

/**
 * A user's gate scope: a keyed hash (HMAC-SHA256) of the one credential the gated tools send, so two
 * servers sharing a store keep users apart, and the store never holds a plain hash of a secret that
 * could be checked against a guess. `key` is APPMGMT_STATE_SECRET where there is one (the same on
 * every replica), else a random key of this process.
 */
export function gateScope(key: string | Uint8Array, credential: string | undefined): string {
  return nodeCrypto().createHmac('sha256', key).update('gate-scope\u0000').update(credential ?? '').digest('hex');
}

/** The digest a store keeps per-user records under (caps, claims): a hash of the scope, whatever its form. */
export function scopeDigest(scope: string): string {
  return nodeCrypto().createHash('sha256').update('scope\u0000').update(scope).digest('hex');
}
