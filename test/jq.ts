import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * Whether jq is on PATH, where the documented audit queries find it. Outside CI a missing jq only
 * skips the runs that need it; CI sets REQUIRE_JQ_TESTS (as it does REQUIRE_REDIS_TESTS), and then a
 * missing jq fails the file.
 */
export const hasJq = (process.env.PATH ?? '').split(delimiter).some((dir) => {
  try {
    accessSync(join(dir, 'jq'), constants.X_OK);
    return true;
  } catch {
    return false;
  }
});
if (!hasJq && process.env.REQUIRE_JQ_TESTS) throw new Error('REQUIRE_JQ_TESTS is set, but jq is not installed (Debian: apt-get install jq).');
