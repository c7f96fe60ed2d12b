import type { ApiClient } from '../../src/api/client.js';
import type { Config } from '../../src/config.js';
import type { ToolContext } from '../../src/tools/define.js';
import { offeredTo } from '../../src/tools/offer.js';

/** What a fake gated tool runs with in the gate's tests: no API, no configuration, a clock at `now`, nothing cancelled. */
export function gateToolContext(now: () => number): ToolContext {
  return {
    api: {} as ApiClient,
    config: {} as Config,
    offered: offeredTo({ readOnly: false }),
    clock: { now, sleep: async () => undefined },
    signal: new AbortController().signal,
    shutdown: new AbortController().signal,
    progress: async () => undefined,
  };
}
