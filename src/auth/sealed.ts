import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * The credentials a person hands over at consent, sealed at rest: AES-256-GCM with a random 96-bit
 * IV, the grant's id as associated data (a sealed value copied into another grant does not open),
 * and the key's id in front, so that a rotated key still opens what it sealed until it is dropped.
 * Keys come from APPMGMT_OAUTH_SEAL_KEYS, newest first: the first seals, every one opens.
 */

/** 256-bit keys, as 64 hex characters (openssl rand -hex 32). */
export const SEAL_KEY_HEX = /^[0-9a-f]{64}$/i;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 's1';

export interface SealKey {
  /** A short digest of the key: names it in sealed values without revealing it. */
  id: string;
  key: Buffer;
}

export interface Sealer {
  /** Seals `plain` for `context` (the grant id) with the newest key. */
  seal(plain: string, context: string): string;
  /**
   * Opens a value sealed for `context` by any configured key.
   * @throws SealError when the value was altered, sealed for another context, or by a key no longer configured.
   */
  open(sealed: string, context: string): string;
  /** Whether `sealed` was sealed with an older key than the newest (so it is worth sealing again). */
  stale(sealed: string): boolean;
}

export class SealError extends Error {
  override name = 'SealError';
}

export function sealKey(hex: string): SealKey {
  if (!SEAL_KEY_HEX.test(hex)) throw new RangeError('a seal key is 64 hex characters (openssl rand -hex 32)');
  const key = Buffer.from(hex, 'hex');
  return { id: createHash('sha256').update('seal-key\u0000').update(key).digest('hex').slice(0, 12), key };
}

/** @throws RangeError when there is no key or one is malformed. */
export function createSealer(hexKeys: string[]): Sealer {
  if (hexKeys.length === 0) throw new RangeError('at least one seal key is needed');
  const keys = hexKeys.map(sealKey);
  const byId = new Map(keys.map((entry) => [entry.id, entry]));
  const newest = keys[0]!;
  return {
    seal(plain, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', newest.key, iv);
      cipher.setAAD(Buffer.from(context));
      const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, newest.id, iv.toString('base64url'), Buffer.concat([body, cipher.getAuthTag()]).toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, id, iv, data] = sealed.split('.');
      const entry = id === undefined ? undefined : byId.get(id);
      if (version !== VERSION || !entry || !iv || !data) throw new SealError('sealed by a key that is no longer configured, or not a sealed value');
      const bytes = Buffer.from(data, 'base64url');
      if (bytes.length < TAG_BYTES) throw new SealError('the sealed value is cut short');
      try {
        const decipher = createDecipheriv('aes-256-gcm', entry.key, Buffer.from(iv, 'base64url'));
        decipher.setAAD(Buffer.from(context));
        decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
        return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      } catch {
        throw new SealError('the sealed value does not open: altered, or sealed for another grant');
      }
    },
    stale: (sealed) => sealed.split('.')[1] !== newest.id,
  };
}
