import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // `<!-- tested-by: … -->` means the named test took the block when it ran.
    setupFiles: ['test/docs/blocks-taken.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
  },
});
