import { afterAll, type RunnerTask } from 'vitest';
import { currentTestFile, taken, untaken } from './markdown.js';

// A setup file (vitest.config.ts) that makes `<!-- tested-by: … -->` mean executed: after a test file
// ran in full and passed, every block of README.md and docs/ that names it must have been taken
// through the helpers of markdown.ts (blocksUnder, testedBlocks, take) during that run.
// A run with a test skipped or filtered out, or failing, says nothing either way.

const testsOf = (task: RunnerTask): RunnerTask[] => ('tasks' in task ? task.tasks.flatMap(testsOf) : [task]);

afterAll(({}, file) => {
  const test = currentTestFile();
  if (!test || testsOf(file).some((each) => each.mode !== 'run' || each.result?.state !== 'pass')) return;
  const missing = untaken(test, taken);
  if (missing.length > 0) {
    throw new Error(`${test} is named by <!-- tested-by --> above ${missing.join(', ')}, but never took ${missing.length === 1 ? 'that block' : 'those blocks'} through test/docs/markdown.ts`);
  }
});
