import { CancelledError } from './errors.js';
import type { Clock } from './tools/define.js';

/** Wall-clock time. `sleep` removes its abort listener when it ends, so long polls never pile listeners up. */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const done = () => {
        signal?.removeEventListener('abort', stop);
        resolve();
      };
      const stop = () => {
        clearTimeout(timer);
        reject(new CancelledError());
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', stop, { once: true });
    }),
};

/**
 * One signal that aborts when any of `signals` does. `dispose()` removes the listeners it added, so
 * a long-lived signal (the server's shutdown, a request's cancellation) never collects them.
 */
export function linkSignals(...signals: Array<AbortSignal | undefined>): { signal: AbortSignal; dispose(): void } {
  const controller = new AbortController();
  const present = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const abort = () => controller.abort();
  for (const signal of present) {
    if (signal.aborted) controller.abort();
    else signal.addEventListener('abort', abort, { once: true });
  }
  return {
    signal: controller.signal,
    dispose: () => present.forEach((signal) => signal.removeEventListener('abort', abort)),
  };
}

/** A clock whose sleeps also end when `shutdown` aborts. */
export function withShutdown(clock: Clock, shutdown: AbortSignal): Clock {
  return {
    now: () => clock.now(),
    async sleep(ms, signal) {
      const link = linkSignals(signal, shutdown);
      try {
        await clock.sleep(ms, link.signal);
      } finally {
        link.dispose();
      }
    },
  };
}
