/** How one send ends early: its deadline, the caller's cancellation or shutdown, and waits that honour them. */

export type AbortCause = 'deadline' | 'cancelled' | 'shutdown';

export interface SendAbort {
  /** Aborts every attempt, body read and retry wait of this send. */
  readonly signal: AbortSignal;
  /** What fired first, once the signal has aborted. */
  cause(): AbortCause | undefined;
  /** Time left before the deadline. */
  remainingMs(): number;
  /** Clears the timer and detaches from the long-lived signals; call it in `finally`. */
  dispose(): void;
}

/**
 * One AbortController per send, fired by a timer at `timeoutMs`, by the caller's `cancel` signal or
 * by the process-wide `shutdown` signal. Those two live long, so we add plain listeners and remove
 * them in dispose(): nothing stays attached to them after the send (AbortSignal.any would tie a
 * new signal to them for as long as they live).
 */
export function linkAbort(timeoutMs: number, sources: { cancel?: AbortSignal | undefined; shutdown?: AbortSignal | undefined }): SendAbort {
  const controller = new AbortController();
  let cause: AbortCause | undefined;
  const fire = (why: AbortCause) => () => {
    if (cause) return;
    cause = why;
    controller.abort(new Error(`send aborted: ${why}`));
  };
  const started = performance.now();
  const timer = setTimeout(fire('deadline'), timeoutMs);
  const links: Array<[AbortSignal, () => void]> = [];
  for (const [signal, why] of [[sources.cancel, 'cancelled'], [sources.shutdown, 'shutdown']] as const) {
    if (!signal) continue;
    const listener = fire(why);
    if (signal.aborted) listener();
    else {
      signal.addEventListener('abort', listener, { once: true });
      links.push([signal, listener]);
    }
  }
  return {
    signal: controller.signal,
    cause: () => cause,
    remainingMs: () => timeoutMs - (performance.now() - started),
    dispose() {
      clearTimeout(timer);
      for (const [signal, listener] of links) signal.removeEventListener('abort', listener);
    },
  };
}
