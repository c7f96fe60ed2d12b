import { DEFAULT_WORLD } from './default-world.js';
import { parseWorld, type World } from './world.js';

/**
 * The default world, validated (a fresh copy each call). It is the same at every start, so the
 * built server does not validate it again: scripts/build.mjs runs this module once and bundles its
 * result as JSON in place of it, which spares every `--sandbox` start zod's pass over the world (a
 * fifth of that start-up). test/sandbox/world.test.ts keeps DEFAULT_WORLD valid and JSON-shaped.
 * @throws Error naming the bad field, only when DEFAULT_WORLD itself is broken (never in a build).
 */
export function defaultWorld(): World {
  return parseWorld(DEFAULT_WORLD);
}
