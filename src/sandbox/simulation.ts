import type { SandboxClock } from './clock.js';
import type { SimRequest, SimResponse } from './types.js';

/** Credentials a person can use against the sandbox's default world. */
export interface DemoCredentials {
  /** full_access personal access token of the owner. */
  accessToken: string;
  /** personal API key of the owner (scheduling jobs, monitoring). */
  apiKey: string;
  monitoringApiKey: string;
}

export interface SimulationOptions {
  clock: SandboxClock;
}

export interface Simulation {
  handle(request: SimRequest): SimResponse | Promise<SimResponse>;
  reset(): void;
  /** @throws Error naming the valid scenarios when `name` is unknown. */
  scenario(name: string): void;
  scenarios: string[];
  credentials: DemoCredentials;
}

// Placeholder until the simulated world lands (issue 3): every route answers 501.
export function createSimulation(_options: SimulationOptions): Simulation {
  return {
    handle: () => ({ status: 501, body: { detail: 'not simulated' } }),
    reset() {},
    scenario(name) {
      throw new Error(`unknown scenario ${name}`);
    },
    scenarios: [],
    credentials: { accessToken: 'demo-token', apiKey: 'demo-key', monitoringApiKey: 'demo-key' },
  };
}
