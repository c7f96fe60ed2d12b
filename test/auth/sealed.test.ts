import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSealer, SealError } from '../../src/auth/sealed.js';

const key = () => randomBytes(32).toString('hex');

describe('sealed credentials', () => {
  const plain = JSON.stringify({ accessToken: 'pat_secret_value', apiKey: 'key_secret_value' });

  it('round-trips, and the sealed value holds neither secret', () => {
    const sealer = createSealer([key()]);
    const sealed = sealer.seal(plain, 'grant-a');
    expect(sealed).not.toContain('pat_secret_value');
    expect(sealed).not.toContain(Buffer.from('pat_secret_value').toString('base64'));
    expect(sealer.open(sealed, 'grant-a')).toBe(plain);
    // A random IV: the same plaintext seals differently each time.
    expect(sealer.seal(plain, 'grant-a')).not.toBe(sealed);
  });

  it('refuses a tampered value, another grant as associated data, and a key no longer configured', () => {
    const first = key();
    const sealer = createSealer([first]);
    const sealed = sealer.seal(plain, 'grant-a');
    const [version, id, iv, data] = sealed.split('.');
    const flipped = `${version}.${id}.${iv}.${data![0] === 'A' ? 'B' : 'A'}${data!.slice(1)}`;
    expect(() => sealer.open(flipped, 'grant-a')).toThrow(SealError);
    expect(() => sealer.open(sealed, 'grant-b')).toThrow(SealError);
    expect(() => createSealer([key()]).open(sealed, 'grant-a')).toThrow(/no longer configured/);
  });

  it('rotates: a new key seals, the previous one still opens, and stale values are told apart', () => {
    const old = key();
    const sealedOld = createSealer([old]).seal(plain, 'grant-a');
    const rotated = createSealer([key(), old]);
    expect(rotated.open(sealedOld, 'grant-a')).toBe(plain);
    expect(rotated.stale(sealedOld)).toBe(true);
    const resealed = rotated.seal(rotated.open(sealedOld, 'grant-a'), 'grant-a');
    expect(rotated.stale(resealed)).toBe(false);
  });
});
