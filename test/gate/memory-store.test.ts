import { createMemoryStore } from '../../src/gate/store.js';
import { describeGateStore } from './store-contract.js';

describeGateStore('in-process', async () => {
  let now = 1_000_000;
  const maxRecords = 1_000;
  return {
    store: createMemoryStore({ now: () => now, maxRecords }),
    maxRecords,
    now: () => now,
    elapse: async (ms) => {
      now += ms;
    },
  };
});
