import { dirname, join } from 'node:path';

/**
 * An esbuild plugin: zod re-exports all of its ~60 error-message locales (about 260 KiB minified) as
 * `z.locales`, which nothing here uses: its own default, English, is imported directly. Bundles get a
 * locales module with English alone: less to compile at start-up.
 */
export const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/]/.test(args.importer) ? { path: join(args.resolveDir, args.path), namespace: 'zod-locales' } : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: 'export { default as en } from "./en.js";',
      resolveDir: dirname(args.path),
    }));
  },
};
