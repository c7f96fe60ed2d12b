/**
 * node:crypto, loaded on its first use. Loading it costs a start about 6 ms, a quarter of what our
 * own modules cost before `initialize`, and nothing answers `initialize` with it (issue 31). The
 * modules a start loads take it from here; the others (auth, Redis, the sandbox) import it as usual.
 */
let loaded: typeof import('node:crypto') | undefined;

export function nodeCrypto(): typeof import('node:crypto') {
  return (loaded ??= process.getBuiltinModule('node:crypto'));
}
