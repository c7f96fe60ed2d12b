import { afterAll } from 'vitest';
import { currentTestFile, taken, untaken } from './markdown.js';

// A setup file (vitest.config.ts) that makes `<!-- tested-by: … -->` mean executed: after a test file
// ran in full and passed, every block of README.md and docs/ that names it must have been taken
// through the helpers of markdown.ts (blocksUnder, testedBlocks, take) during that run.
// A run with a test skipped or filtered out, or failing, says nothing either way.

afterAll(({}, file) => {
  const test = currentTestFile();
  if (!test) return;
  const tests = (function all(task: { tasks?: unknown[] }): Array<{ mode: string; result?: { state?: string } }> {
    return task.tasks ? task.tasks.flatMap((child) => all(child as { tasks?: unknown[] })) : [task as { mode: string; result?: { state?: string } }];
  })(file);
  if (tests.some((each) => each.mode !== 'run' || each.result?.state !== 'pass')) return;
  const missing = untaken(test, taken);
  if (missing.length > 0) throw new Error(`${test} is named by <!-- tested-by --> above ${missing.join(', ')}, but never took ${missing.length === 1 ? 'that block' : 'those blocks'} through test/docs/markdown.ts`);
});
