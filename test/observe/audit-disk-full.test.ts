import { execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLineSchema, fileSink } from '../../src/observe/audit.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { AUDIT_DOCS, DOC_TRAIL_PATH, spentTodayCommand } from '../docs/operations-example.js';
import { auditedServer, campaign } from './audit-support.js';
import { hasJq } from '../jq.js';

/**
 * Issue 25, item 4: on a full disk a spend that could not be recorded was not sent, as promised,
 * but the write had left the start of a line; once space was freed, the next line was appended onto
 * it, one line held two records, and the documented `jq` query failed for the whole file. Here the
 * trail lives on a tmpfs small enough to fill. Mounting needs root (CI runs as root); elsewhere the
 * test is skipped and says why.
 */

const PAGE = 4096;
/** The tmpfs: a few pages for the trail, the rest for the file that fills it. */
const SIZE = 64 * 1024;

/** Mounts a tmpfs of SIZE on `dir`; the reason it cannot, or undefined. */
function mountTmpfs(dir: string): string | undefined {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${SIZE},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return undefined;
  } catch (error) {
    return `skipped: the disk-full test needs to mount a tmpfs (root on Linux), and mount failed: ${String((error as { stderr?: Buffer }).stderr ?? error).trim()}`;
  }
}


describe('the audit trail on a full disk', () => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-full-'));
  const trail = join(dir, 'audit.jsonl');
  const filler = join(dir, 'filler');
  let skipReason: string | undefined;
  let sandbox: Sandbox;

  beforeAll(async () => {
    skipReason = process.platform !== 'linux' ? 'skipped: the disk-full test mounts a Linux tmpfs' : mountTmpfs(dir);
    if (skipReason) console.warn(skipReason);
    sandbox = await startSandbox({ control: true });
  });
  afterAll(async () => {
    await sandbox?.close();
    if (skipReason === undefined) execFileSync('umount', [dir]);
    rmSync(dir, { recursive: true, force: true });
  });

  /** Writes to `filler` until the disk has no page left. */
  function fillDisk(): void {
    const fd = openSync(filler, 'w');
    const chunk = Buffer.alloc(PAGE, 0x2e);
    try {
      for (;;) writeSync(fd, chunk);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
    } finally {
      closeSync(fd);
    }
  }

  it('never joins a torn line to the next: after space returns, every whole line parses and the documented query answers', async ({ skip }) => {
    if (skipReason) return skip(skipReason);
    const server = await auditedServer(sandbox, fileSink(trail));
    try {
      await server.call('create_ad_campaign', campaign('Before the disk filled', 5_000_000));
      expect((await server.call('create_ad_campaign', { ...campaign('Before the disk filled', 5_000_000), confirm: true })).isError).toBe(false);
      await server.call('create_ad_campaign', campaign('When the disk was full', 7_500_000));
      // Other warnings until the trail's last page has room for part of a confirmation line, not all of it.
      const confirmedLength = readFileSync(trail, 'utf8').split('\n').find((line) => line.includes('"step":"confirmed"'))!.length;
      for (let i = 0; ; i++) {
        const room = PAGE - (statSync(trail).size % PAGE);
        if (room > 16 && room < confirmedLength - 16) break;
        expect(i).toBeLessThan(100);
        await server.call('create_ad_campaign', campaign(`Filler warning ${i}`, 1_000_000));
      }
      fillDisk();

      const refused = await server.call('create_ad_campaign', { ...campaign('When the disk was full', 7_500_000), confirm: true });
      expect(refused.text).toMatch(/^NOT SENT: the audit record of this call could not be written .*The warning is still pending/);
      expect(sandbox.requests.filter((request) => request.method === 'POST')).toHaveLength(1);
      // The write stopped half-way: the trail ends in the start of a line.
      expect(readFileSync(trail, 'utf8').endsWith('\n')).toBe(false);

      unlinkSync(filler);
      const done = await server.call('create_ad_campaign', { ...campaign('When the disk was full', 7_500_000), confirm: true });
      expect(done.isError).toBe(false);
    } finally {
      await server.close();
    }

    const lines = readFileSync(trail, 'utf8').split('\n').filter(Boolean);
    const parses = (line: string) => {
      try {
        return AuditLineSchema.safeParse(JSON.parse(line)).success;
      } catch {
        return false;
      }
    };
    const torn = lines.filter((line) => !parses(line));
    expect(torn).toHaveLength(1);
    expect(torn[0]!.startsWith('{"v":1,')).toBe(true);
    // The fragment's line is followed by whole lines: the retried confirmation, its request, its answer.
    const after = lines.slice(lines.indexOf(torn[0]!) + 1).map((line) => (JSON.parse(line) as { step: string }).step);
    expect(after).toEqual(['confirmed', 'sent', 'answered']);

    if (!hasJq) return console.warn('jq is not installed: the documented query was not run on the trail with a torn line');
    const user = (JSON.parse(lines.find(parses)!) as { user: string }).user;
    const command = spentTodayCommand(AUDIT_DOCS[0]).replace(DOC_TRAIL_PATH, trail).replace(/--arg user [0-9a-f]{32}/, `--arg user ${user}`);
    const answer = JSON.parse(execFileSync('bash', ['-c', command], { encoding: 'utf8' })) as { spends: Array<{ amount_micros: number; outcome: string }> };
    expect(answer.spends.map(({ amount_micros, outcome }) => ({ amount_micros, outcome }))).toEqual([
      { amount_micros: 5_000_000, outcome: 'success' },
      { amount_micros: 7_500_000, outcome: 'success' },
    ]);
  });
});
