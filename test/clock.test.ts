import { getEventListeners } from 'node:events';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { linkSignals, realClock, withShutdown } from '../src/clock.js';
import { CancelledError } from '../src/errors.js';

describe('the real clock', () => {
  afterEach(() => vi.useRealTimers());

  it('leaves no abort listener behind on a long-lived signal, however often it sleeps', async () => {
    vi.useFakeTimers();
    const controller = new AbortController();
    const shutdown = new AbortController();
    const clock = withShutdown(realClock, shutdown.signal);
    for (let i = 0; i < 30; i++) {
      const sleeping = clock.sleep(5_000, controller.signal);
      await vi.advanceTimersByTimeAsync(5_000);
      await sleeping;
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('ends a sleep at once when the signal or the shutdown aborts', async () => {
    const shutdown = new AbortController();
    const clock = withShutdown(realClock, shutdown.signal);
    const sleeping = clock.sleep(60_000);
    shutdown.abort();
    await expect(sleeping).rejects.toBeInstanceOf(CancelledError);
  });

  it('links signals and lets go of them', () => {
    const a = new AbortController();
    const b = new AbortController();
    const link = linkSignals(a.signal, b.signal, undefined);
    b.abort();
    expect(link.signal.aborted).toBe(true);
    link.dispose();
    expect(getEventListeners(a.signal, 'abort')).toHaveLength(0);
  });
});
