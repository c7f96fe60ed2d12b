#!/usr/bin/env node
// The executable (dist/index.js). It runs the server bundle (src/index.ts, built as one CommonJS file)
// through a V8 code cache, which Node 20 offers only to classic scripts, not to ES modules: without
// it, compiling is about a third of the start-up. Node 22 and 24 take the same cache, so one
// mechanism serves every version (Node's own module.enableCompileCache exists only from 22 on, and
// caches a module as first compiled, without the functions a session compiles later).
//
// The cache lives in the user's cache directory (NODE_COMPILE_CACHE's when set), never in dist/:
// an install may be read-only, shared by several users and Node versions, and must not change
// under its own tests. V8 rejects a cache made for another bundle, Node version or set of V8 flags,
// so the file's name carries all three and each combination keeps its own. A start that finds
// none (or has it rejected) writes one after its first second, so it also holds the functions a
// session compiles on its first requests. NODE_DISABLE_COMPILE_CACHE=1 turns it off, as it does
// Node's own cache; a directory that cannot be written means running uncached, nothing more.
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** The bundle's file name beside this one (its content hash included), set by scripts/build.mjs. */
declare const BUNDLE: string;

/** The cache's folder inside the user's cache directory. */
const CACHE_FOLDER = 'app-management-mcp';
/** Caches kept: a few bundles times a few Node versions; older ones are deleted when a new one is written. */
const MAX_CACHE_FILES = 12;
/** Long enough for a client's initialize and tools/list, whose functions the cache should hold. */
const CACHE_AFTER_MS = 1_000;

const filename = fileURLToPath(new URL(BUNDLE, import.meta.url));
const folder = process.env.NODE_DISABLE_COMPILE_CACHE ? undefined : cacheFolder();
const cacheFile = folder && join(folder, `${basename(filename, '.cjs')}-${process.version}-${process.arch}-${flagsKey()}.cache`);
const { script, cached } = compile();
const module = { exports: {} };
script.runInThisContext()(module.exports, createRequire(filename), module, filename, dirname(filename));

if (cacheFile && (!cached || script.cachedDataRejected)) {
  setTimeout(() => save(cacheFile, script.createCachedData()), CACHE_AFTER_MS).unref();
}

/** The bundle compiled, through its cache when there is one; the cache's bytes (a megabyte) are not kept once read. */
function compile(): { script: Script; cached: boolean } {
  const cachedData = cacheFile ? readIfPresent(cacheFile) : undefined;
  const source = readFileSync(filename, 'utf8');
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename, cachedData });
  return { script, cached: cachedData !== undefined };
}

/** Where caches go: NODE_COMPILE_CACHE's folder when set, else the platform's per-user cache directory. */
function cacheFolder(): string | undefined {
  const env = process.env;
  const home = () => {
    try {
      return homedir();
    } catch {
      return ''; // no home directory: no cache
    }
  };
  const base =
    env.NODE_COMPILE_CACHE ||
    (process.platform === 'win32'
      ? env.LOCALAPPDATA
      : process.platform === 'darwin'
        ? home() && join(home(), 'Library', 'Caches')
        : (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : home() && join(home(), '.cache')));
  return base ? join(base, CACHE_FOLDER) : undefined;
}

/** The V8 flags that reach this process (they decide whether V8 takes a cache), as a short hash; "0" without any. */
function flagsKey(): string {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join('\n').trim();
  let hash = 0x811c9dc5; // FNV-1a, 32 bits: a file name, not a secret
  for (let i = 0; i < flags.length; i++) hash = Math.imul(hash ^ flags.charCodeAt(i), 0x01000193) >>> 0;
  return flags ? hash.toString(36) : '0';
}

function readIfPresent(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}

/** Atomic, so a concurrent start never reads half a file; a folder that cannot be written means running uncached. */
function save(path: string, data: Buffer): void {
  const partial = `${path}.${process.pid}.tmp`;
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    writeFileSync(partial, data);
    renameSync(partial, path);
    pruneOldCaches(dirname(path));
  } catch {
    rmSync(partial, { force: true });
  }
}

/** Keeps the newest MAX_CACHE_FILES caches: every build and Node version leaves one behind. */
function pruneOldCaches(dir: string): void {
  const caches = readdirSync(dir)
    .filter((name) => name.endsWith('.cache'))
    .map((name) => ({ path: join(dir, name), at: statSync(join(dir, name)).mtimeMs }))
    .sort((a, b) => b.at - a.at);
  for (const { path } of caches.slice(MAX_CACHE_FILES)) rmSync(path, { force: true });
}
