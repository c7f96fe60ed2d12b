import type { SandboxClock } from './clock.js';
import { tooManyRequests } from './respond.js';
import type { SimResponse } from './types.js';
import type { Workspace } from './world.js';

export type LimitedOperation = keyof typeof BASE_LIMITS;

/** Base requests per minute for the cheapest plan (section 8; pull/resolve from the service facts). */
export const BASE_LIMITS = {
  email_customization: 10,
  group_sharing: 30,
  social_calendar: 40,
  /** Service facts: social-calendar writes (start scheduling among them) have their own 20 per minute. */
  social_calendar_writes: 20,
  repo_sync: 20,
} as const;

const WINDOW_MS = 60_000;

/** Fixed one-minute windows on the sandbox clock. */
export interface Limiter {
  /** Counts one request on `bucket`; answers 429 instead when the window is full (the request is not counted). */
  hit(bucket: string, limit: number): SimResponse | undefined;
}

export function createLimiter(clock: SandboxClock): Limiter {
  const windows = new Map<string, { window: number; count: number }>();
  return {
    hit(bucket, limit) {
      const now = clock.now();
      const window = Math.floor(now / WINDOW_MS);
      const entry = windows.get(bucket);
      const count = entry && entry.window === window ? entry.count : 0;
      if (count >= limit) {
        const retryAfter = Math.max(1, Math.ceil(((window + 1) * WINDOW_MS - now) / 1000));
        return tooManyRequests(`Rate limit exceeded: ${limit} requests per minute. Retry in ${retryAfter} s.`, retryAfter);
      }
      windows.set(bucket, { window, count: count + 1 });
      return undefined;
    },
  };
}

/** A workspace's own base (when it has one) times its plan multiplier. */
export function limitFor(workspace: Workspace, operation: LimitedOperation): number {
  const base = workspace.rate_limits[operation] ?? BASE_LIMITS[operation];
  return Math.max(1, Math.floor(base * workspace.plan.rate_limit_multiplier));
}
