#!/usr/bin/env node
// The executable (dist/index.js). It runs the server bundle (src/index.ts, built as one CommonJS file)
// through a V8 code cache, which Node 20 offers only to classic scripts, not to ES modules: without
// it, compiling is about a third of the start-up. The cache lives next to the bundle. The build
// writes it; a run under another Node version finds it rejected by V8 and rewrites it after its
// first second. The bundle's file name carries its content hash, so a cache never outlives its code.
// NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does Node's own cache.
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** The bundle's file name beside this one, set by scripts/build.mjs. */
declare const BUNDLE: string;

const filename = fileURLToPath(new URL(BUNDLE, import.meta.url));
const cacheFile = `${filename}.cache`;
const useCache = !process.env.NODE_DISABLE_COMPILE_CACHE;
const cachedData = useCache ? readIfPresent(cacheFile) : undefined;

const source = readFileSync(filename, 'utf8');
const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, cachedData });
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename));

if (useCache && (!cachedData || script.cachedDataRejected)) {
  // Written after a second, so it also holds the functions a session compiles on its first requests.
  setTimeout(() => save(cacheFile, script.createCachedData()), 1000).unref();
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Atomic, so a concurrent start never reads half a file; a read-only install just runs uncached. */
function save(path: string, data: Buffer): void {
  const partial = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(partial, data);
    renameSync(partial, path);
  } catch {
    rmSync(partial, { force: true }); // not writable: run uncached
  }
}
