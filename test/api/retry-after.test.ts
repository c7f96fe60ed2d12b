import { describe, expect, it } from 'vitest';
import { parseWait, requestedWaitMs, waitSeconds } from '../../src/api/retry-after.js';

const NOW = Date.UTC(2030, 0, 1, 12, 0, 0);

describe('parseWait', () => {
  it.each([
    ['3', false, 3000],
    [' 2.5 ', false, 2500],
    ['0', false, 0],
    ['-5', false, 0],
    [new Date(NOW + 90_000).toUTCString(), false, 90_000],
    ['Tuesday, 01-Jan-30 12:01:00 GMT', false, 60_000],
    [new Date(NOW - 1).toUTCString(), false, 0],
    [String(NOW / 1000 + 60), true, 60_000],
    [String(NOW + 5_000), true, 5_000],
    [String(NOW / 1000 - 60), true, 0],
    [String(NOW / 1000 + 60), false, (NOW / 1000 + 60) * 1000],
  ])('reads %j (epoch allowed: %s) as %d ms', (value, epoch, ms) => {
    expect(parseWait(value, epoch, NOW)).toBe(ms);
  });

  it.each(['Infinity', '+infinity'])('reads %j as never', (value) => {
    expect(parseWait(value, false, NOW)).toBe(Infinity);
  });

  it.each(['', 'soon', 'NaN', '0x10', '1 2', '-Infinity', '3s', 'Mon, garbage'])('reads %j as unknown', (value) => {
    expect(parseWait(value, true, NOW)).toBeUndefined();
  });
});

describe('requestedWaitMs', () => {
  it('lets the first present header decide, in the order ky reads them', () => {
    const headers = new Headers({ 'x-rate-limit-reset': '9', 'x-ratelimit-retry-after': '4', 'ratelimit-reset': '2' });
    expect(requestedWaitMs(headers, NOW)).toBe(2000);
  });

  it('falls back to backoff when the first present header is unreadable', () => {
    expect(requestedWaitMs(new Headers({ 'retry-after': 'soon', 'ratelimit-reset': '2' }), NOW)).toBeUndefined();
    expect(requestedWaitMs(new Headers(), NOW)).toBeUndefined();
  });
});

describe('waitSeconds', () => {
  it('rounds up, and has no number for never', () => {
    expect(waitSeconds(2500)).toBe(3);
    expect(waitSeconds(0)).toBe(0);
    expect(waitSeconds(Infinity)).toBeUndefined();
    expect(waitSeconds(undefined)).toBeUndefined();
  });
});
