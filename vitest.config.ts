import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // `<!-- tested-by: … -->` means the named test took the block when it ran.
    setupFiles: ['test/docs/blocks-taken.ts'],
    testTimeout: 20_000,
    hookTimeout: 20_000,
    // expect.poll waits for something eventual (a view's host round trips, a process's line); its 1 s
    // default was too short for a view's look-back paging on a busy CI machine. Not a timing claim.
    expect: { poll: { timeout: 10_000 } },
  },
});
