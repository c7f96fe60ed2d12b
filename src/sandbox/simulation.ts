import type { SandboxClock } from './clock.js';
import { defaultWorld } from './built-in-world.js';
import { demoCredentials, type DemoCredentials } from './directory.js';
import { snapshot, type SimulationSnapshot } from './inspect.js';
import { effectiveRoles, type EffectiveRole } from './roles.js';
import { dispatch } from './router.js';
import { routes } from './routes/index.js';
import { applyScenario, SCENARIO_NAMES } from './scenarios.js';
import { createState, type State } from './state.js';
import type { SimRequest, SimResponse } from './types.js';
import type { World } from './world.js';

export type { DemoCredentials } from './directory.js';

export interface SimulationOptions {
  clock: SandboxClock;
  /** The world to simulate (see `parseWorld`); the default world when absent. */
  world?: World;
  /** Overrides the world's seed for generated ids and commit hashes. */
  seed?: number;
}

export interface Simulation {
  handle(request: SimRequest): SimResponse | Promise<SimResponse>;
  /** Back to the initial world; world offsets (job starts, metric ages) count from the clock's time now. */
  reset(): void;
  /** @throws Error naming the valid scenarios when `name` is unknown. */
  scenario(name: string): void;
  scenarios: string[];
  credentials: DemoCredentials;
  /** The world as it started. */
  world: World;
  /** What the requests changed: templates, shares, invitations, campaigns, jobs, credits, resolutions. */
  inspect(): SimulationSnapshot;
  /** 4.4 rule 1 for one app's members. @throws Error when the app does not exist. */
  effectiveRoles(appId: string): EffectiveRole[];
}

/** A stateful, deterministic simulation of the eight operations over a seeded in-memory world. */
export function createSimulation(options: SimulationOptions): Simulation {
  const world = options.world ?? defaultWorld();
  const fresh = () => createState(world, options.clock, options.seed ?? world.seed);
  let state: State = fresh();
  return {
    handle: (request) => dispatch(routes, state, request),
    reset() {
      state = fresh();
    },
    scenario: (name) => applyScenario(state, name),
    scenarios: SCENARIO_NAMES,
    credentials: demoCredentials(world),
    world,
    inspect: () => snapshot(state),
    effectiveRoles(appId) {
      const app = state.apps.find((candidate) => candidate.id === appId);
      if (!app) throw new Error(`unknown app ${appId}`);
      return effectiveRoles(state, app);
    },
  };
}
