import type { Meter } from '@opentelemetry/api';
import type { GateStore } from '../gate/store.js';

/**
 * What an operator watches beside the request metrics, as observable gauges read at each export:
 * tool calls in flight, the in-process gate's pending warnings, and whether the gate's store answers.
 * OpenTelemetry serves all three, so the server has no /metrics endpoint of its own.
 */

/** A store that does not answer within this is counted unreachable for that export. */
export const STORE_CHECK_TIMEOUT_MS = 2_000;

/** The in-process store counts its records; Redis would need a scan of the shared database, so it is not asked. */
interface CountingStore {
  sizes(): Record<string, number>;
}

const counts = (store: GateStore | undefined): CountingStore | undefined =>
  store && typeof (store as Partial<CountingStore>).sizes === 'function' ? (store as GateStore & CountingStore) : undefined;

export function registerGauges(meter: Meter, active: { calls: number }, store: GateStore | undefined): void {
  meter
    .createObservableGauge('app_management_mcp.tool_calls.active', { description: 'Tool calls in flight on this process.', unit: '{call}' })
    .addCallback((result) => result.observe(active.calls));
  const counting = counts(store);
  if (counting) {
    meter
      .createObservableGauge('app_management_mcp.gate.pending_warnings', { description: 'Warnings issued and not yet confirmed or expired (in-process gate store).', unit: '{warning}' })
      .addCallback((result) => result.observe(counting.sizes().pending ?? 0));
  }
  if (store) {
    meter
      .createObservableGauge('app_management_mcp.gate.store.reachable', { description: "1 when the gate's state store answered its health check at this export, else 0.", unit: '1' })
      .addCallback(async (result) => result.observe((await reachable(store)) ? 1 : 0));
  }
}

async function reachable(store: GateStore): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), STORE_CHECK_TIMEOUT_MS)));
  try {
    return await Promise.race([store.health().then(() => true, () => false), late]);
  } finally {
    clearTimeout(timer);
  }
}
