import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/errors.js';
import { silentLog, type Log } from '../../src/log.js';
import {
  AUDIT_FILE_MODE,
  AUDIT_PREFIX,
  AuditLineSchema,
  AuditUnwritableError,
  checkAuditFile,
  cleanText,
  createAuditTrail,
  deadlineSink,
  fileSink,
  maskSecretShapes,
  stderrSink,
  type OpenFile,
} from '../../src/observe/audit.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { BIN, runNode } from '../process.js';
import { auditedServer, campaign, memorySink, parseTrail, receivedDigest, spendsFromTrail } from './audit-support.js';

const posts = (sandbox: Sandbox) => sandbox.requests.filter((request) => request.method === 'POST');

describe('the audit trail', () => {
  let sandbox: Sandbox;
  beforeEach(async () => {
    sandbox = await startSandbox({ control: true });
  });
  afterEach(async () => {
    await sandbox.close();
  });

  it('records a warned, confirmed, sent and answered spend in lines the schema parses, with the digest of exactly what the service received', async () => {
    const trail = memorySink();
    const server = await auditedServer(sandbox, trail.sink);
    // Keys the body sends out of order (keyword_themes after landing_page, the settings' own), so the digest's sorting shows.
    const spring = { ...campaign('Spring'), keyword_themes: ['planner'], campaign_settings: { language_code: 'en', ad_rotation: 'OPTIMIZE' } };
    await server.call('create_ad_campaign', spring);
    await server.call('create_ad_campaign', { ...spring, confirm: true });
    await server.close();

    const lines = trail.parsed();
    expect(lines.map((line) => `${line.step}:${line.outcome}`)).toEqual(['warned:pending', 'confirmed:pending', 'sent:pending', 'answered:success']);
    const [warned, confirmed, sent, answered] = lines;
    expect(warned).toMatchObject({ tool: 'create_ad_campaign', app: 'app_demo', amount_micros: 5_000_000, cost: expect.stringMatching(/^daily budget 5\.00 in the account currency/) });
    // One user and one call description across the steps; the confirmation's steps share one call id.
    expect(new Set(lines.map((line) => line.user)).size).toBe(1);
    expect(new Set(lines.map((line) => line.request_sha256)).size).toBe(1);
    expect(confirmed!.call).toBe(sent!.call);
    expect(sent!.call).toBe(answered!.call);
    expect(warned!.call).not.toBe(confirmed!.call);
    expect(sent!.http).toBe('POST /api/apps/app_demo/adnet-ads/campaigns');
    const [received] = posts(sandbox);
    const body = received!.body as Record<string, unknown>;
    expect(Object.keys(body)).not.toEqual(Object.keys(body).sort());
    expect(Object.keys(body.campaign_settings as object)).toEqual(['language_code', 'ad_rotation']);
    // Computed in the test from the documented definition, with node:crypto, not the server's code.
    expect(sent!.sent_sha256).toBe(receivedDigest(received!));
    expect(answered!.summary).toMatch(/^created campaign \S+, status/);
    // The user is a hash of the gate scope: the token appears nowhere.
    const token = sandbox.simulation.credentials.accessToken;
    expect(trail.lines.join('')).not.toContain(token);
    expect(spendsFromTrail(lines)).toEqual([expect.objectContaining({ outcome: 'success', unanswered: false })]);
  });

  it('never writes a credential or secret-shaped text from an upstream answer, only a trimmed summary', async () => {
    const trail = memorySink();
    const server = await auditedServer(sandbox, trail.sink);
    const token = sandbox.simulation.credentials.accessToken;
    const someoneElses = 'sk_live_9fQ2xL7pR4tV8wY1zB6cN3mK5jH0gD2s';
    const detail = `rejected for ${token}; retry with Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl api_key=${someoneElses} ${'padding '.repeat(200)}`;
    sandbox.script({ status: 422, method: 'POST', path: /\/campaigns$/, body: { detail } });
    await server.call('create_ad_campaign', campaign('Echoes'));
    const answer = await server.call('create_ad_campaign', { ...campaign('Echoes'), confirm: true });
    await server.close();

    expect(answer.isError).toBe(true);
    const written = trail.lines.join('');
    for (const secret of [token, someoneElses, 'eyJhbGciOiJIUzI1NiJ9', 'c2lnbmF0dXJl']) expect(written).not.toContain(secret);
    const answered = trail.parsed().find((line) => line.step === 'answered')!;
    expect(answered).toMatchObject({ outcome: 'refused', status: 422 });
    expect(answered.summary!.length).toBeLessThanOrEqual(200);
    expect(answered.summary).toMatch(/^the service said: rejected for \[redacted\]; retry with Authorization: Bearer \[masked\]/);
  });

  it('masks secret shapes in linear time and cuts megabyte text before reading it', () => {
    expect(maskSecretShapes('token: abc123 and password=hunter2, ok')).toBe('token [masked] and password [masked], ok');
    expect(maskSecretShapes('campaign cmp_1 on app_demo')).toBe('campaign cmp_1 on app_demo');
    expect(maskSecretShapes('key 0123456789abcdef0123456789abcdef01 end')).toBe('key [masked] end');
    const hostile = `${'a1'.repeat(500_000)} ${'bearer '.repeat(200_000)}${' '.repeat(1_000_000)}`;
    const cleaned = cleanText(hostile, 200, (text) => text, true);
    expect(cleaned.length).toBeLessThanOrEqual(200);
    expect(cleaned).toBe('[masked]\u2026');
  });

  it('refuses the spend when the confirmation cannot be recorded, sends nothing, and keeps the warning for a confirmation once the trail works', async () => {
    const trail = memorySink();
    const server = await auditedServer(sandbox, trail.sink);
    await server.call('create_ad_campaign', campaign('Disk full'));
    trail.sink.failing = (step) => step === 'confirmed';
    const refused = await server.call('create_ad_campaign', { ...campaign('Disk full'), confirm: true });
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/^NOT SENT: the audit record of this call could not be written .*Nothing was sent\. The warning is still pending/);
    expect(posts(sandbox)).toEqual([]);

    trail.sink.failing = () => false;
    const done = await server.call('create_ad_campaign', { ...campaign('Disk full'), confirm: true });
    await server.close();
    expect(done.isError).toBe(false);
    expect(posts(sandbox)).toHaveLength(1);
    expect(spendsFromTrail(trail.parsed())).toEqual([expect.objectContaining({ outcome: 'success' })]);
  });

  it('refuses the spend when the request cannot be recorded before it leaves: nothing is sent and the warning is used up', async () => {
    const trail = memorySink();
    const server = await auditedServer(sandbox, trail.sink);
    await server.call('create_ad_campaign', campaign('Sent line lost'));
    trail.sink.failing = (step) => step === 'sent';
    const refused = await server.call('create_ad_campaign', { ...campaign('Sent line lost'), confirm: true });
    expect(refused.text).toMatch(/^NOT SENT: the audit record of this call could not be written .*Nothing was sent\. The warning was used up/);
    expect(posts(sandbox)).toEqual([]);
    trail.sink.failing = () => false;
    const again = await server.call('create_ad_campaign', { ...campaign('Sent line lost'), confirm: true });
    await server.close();
    expect(again.text).toMatch(/^NOT SENT: confirm: true needs a pending warning/);
    expect(posts(sandbox)).toEqual([]);
    expect(trail.parsed().filter((line) => line.step === 'refused').map((line) => line.reason)).toEqual(['audit_unwritable', 'no_pending_warning']);
  });

  it('refuses the spend when the trail file cannot take a byte (/dev/full), sending nothing', async () => {
    const server = await auditedServer(sandbox, fileSink('/dev/full'));
    const warning = await server.call('create_ad_campaign', campaign('No space'));
    expect(warning.text).toMatch(/^CONFIRMATION NEEDED/); // a warning spends nothing: its lost line is logged, not fatal
    const refused = await server.call('create_ad_campaign', { ...campaign('No space'), confirm: true });
    await server.close();
    expect(refused.text).toMatch(/^NOT SENT: the audit record of this call could not be written/);
    expect(posts(sandbox)).toEqual([]);
  });

  it('refuses the spend, at once, when the trail file was swapped for a FIFO or a symbolic link; nothing is written through either', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-swap-'));
    const path = join(dir, 'trail.jsonl');
    const elsewhere = join(dir, 'elsewhere.jsonl');
    const server = await auditedServer(sandbox, fileSink(path));
    try {
      for (const [swap, name] of [
        [() => execFileSync('mkfifo', [path]), 'Swapped for a FIFO'],
        [() => symlinkSync(elsewhere, path), 'Swapped for a link'],
      ] as const) {
        await server.call('create_ad_campaign', campaign(name));
        unlinkSync(path);
        swap();
        // Opened as before, the FIFO would hold this call until a reader came: past the test's timeout.
        const refused = await server.call('create_ad_campaign', { ...campaign(name), confirm: true });
        expect(refused.text).toMatch(/^NOT SENT: the audit record of this call could not be written .*The warning is still pending/);
        unlinkSync(path);
      }
      expect(posts(sandbox)).toEqual([]);
      expect(() => statSync(elsewhere)).toThrow(/ENOENT/);
      // Back to a file: the warning kept by the refusal is confirmed.
      const done = await server.call('create_ad_campaign', { ...campaign('Swapped for a link'), confirm: true });
      expect(done.isError).toBe(false);
      expect(posts(sandbox)).toHaveLength(1);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("records refusals by the server's own argument checks without the arguments' text: no settings key, no geo target", async () => {
    const trail = memorySink();
    const server = await auditedServer(sandbox, trail.sink);
    server.config.maxDailyBudgetMicros = 10_000_000;
    const invalid = await server.call('create_ad_campaign', { ...campaign('Checked'), geo_targets: ['Atlantis-Zq9'], campaign_settings: { 'key "Zq9"': 'x' } });
    expect(invalid.text).toContain('Zq9'); // the model is told which; the trail is not
    const capped = await server.call('create_ad_campaign', { ...campaign('Capped'), campaign_settings: { bid_ceiling_zq9_micros: 50_000_000 } });
    expect(capped.text).toMatch(/campaign_settings\.bid_ceiling_zq9_micros 50000000 .* above the cap/);
    await server.close();
    expect(trail.lines.join('\n')).not.toMatch(/zq9|atlantis/i);
    expect(trail.parsed().map(({ step, reason, summary }) => ({ step, reason, summary }))).toEqual([
      { step: 'refused', reason: 'local_check', summary: "the server's argument checks refused geo_targets, campaign_settings" },
      { step: 'refused', reason: 'local_check', summary: 'an amount inside campaign_settings, 50000000, is above the cap of 10000000 (APPMGMT_MAX_DAILY_BUDGET_MICROS)' },
    ]);
  });

  it('makes each line durable before the request leaves and records the answer after it', async () => {
    const events: string[] = [];
    const trail = memorySink(events);
    const server = await auditedServer(sandbox, trail.sink, { events });
    await server.call('create_ad_campaign', campaign('Ordered'));
    events.length = 0;
    await server.call('create_ad_campaign', { ...campaign('Ordered'), confirm: true });
    await server.close();
    expect(events).toEqual(['append confirmed', 'durable confirmed', 'append sent', 'durable sent', 'fetch POST', 'append answered', 'durable answered']);
  });

  it('fsyncs each line of its file before going on: the sent line is on disk before the service receives the POST', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-fsync-'));
    const path = join(dir, 'trail.jsonl');
    const events: string[] = [];
    // The real file, opened as the sink opens it; each fsync notes which line it made durable and what the service had received by then.
    const watched: OpenFile = async (file, flags, mode) => {
      const handle = await open(file, flags, mode);
      const sync = handle.sync.bind(handle);
      handle.sync = async () => {
        await sync();
        const last = parseTrail(readFileSync(path, 'utf8')).at(-1)!;
        events.push(`fsync ${last.step}, ${posts(sandbox).length} POST received`);
      };
      return handle;
    };
    const server = await auditedServer(sandbox, fileSink(path, watched), { events });
    try {
      await server.call('create_ad_campaign', campaign('On disk'));
      expect(events).toEqual(['fsync warned, 0 POST received']);
      events.length = 0;
      expect((await server.call('create_ad_campaign', { ...campaign('On disk'), confirm: true })).isError).toBe(false);
      expect(events).toEqual(['fsync confirmed, 0 POST received', 'fsync sent, 0 POST received', 'fetch POST', 'fsync answered, 1 POST received']);
      expect(parseTrail(readFileSync(path, 'utf8')).map((line) => line.step)).toEqual(['warned', 'confirmed', 'sent', 'answered']);
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('records each refusal of the gate with its reason: no warning, a call in flight, one already done', async () => {
    const trail = memorySink();
    const server = await auditedServer(sandbox, trail.sink);
    await server.call('create_ad_campaign', { ...campaign('Never warned'), confirm: true });
    await server.call('create_ad_campaign', campaign('Racing'));
    sandbox.script({ status: 200, method: 'POST', path: /\/campaigns$/, hang: true });
    const first = server.call('create_ad_campaign', { ...campaign('Racing'), confirm: true });
    while (posts(sandbox).length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await server.call('create_ad_campaign', { ...campaign('Racing'), confirm: true });
    sandbox.release(); // the hung request answers 504: an unknown outcome
    expect((await first).text).toMatch(/^OUTCOME UNKNOWN/);
    expect(second.text).toMatch(/^NOT SENT: an identical create_ad_campaign call/);
    await server.close();
    const lines = trail.parsed();
    expect(lines.filter((line) => line.step === 'refused').map((line) => line.reason)).toEqual(['no_pending_warning', 'in_flight']);
    expect(lines.find((line) => line.step === 'answered')).toMatchObject({ outcome: 'unknown', status: 504, summary: 'the service answered 504' });
    expect(spendsFromTrail(lines)).toEqual([expect.objectContaining({ outcome: 'unknown', unanswered: false })]);
  });
});

describe('where the trail goes', () => {
  it('creates its file 0600 even under a permissive umask, and appends whole lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-'));
    const path = join(dir, 'trail.jsonl');
    const old = process.umask(0);
    try {
      await checkAuditFile(path, silentLog);
      expect(statSync(path).mode & 0o777).toBe(AUDIT_FILE_MODE);
      const trail = createAuditTrail({ sink: fileSink(path), now: () => Date.parse('2026-11-25T12:00:00Z'), redact: (text) => text, log: silentLog });
      const call = trail.call({ scope: 'scope-1', tool: 'create_ad_campaign', request: campaign('File') });
      await call.warned('daily budget 5.00 in the account currency');
      await call.confirmed();
    } finally {
      process.umask(old);
    }
    const lines = parseTrail(readFileSync(path, 'utf8'));
    rmSync(dir, { recursive: true, force: true });
    expect(lines.map((line) => line.step)).toEqual(['warned', 'confirmed']);
    expect(lines[0]!.time).toBe('2026-11-25T12:00:00.000Z');
  });

  it('creates the file again, 0600, when log rotation moved it away between two lines', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-rotate-'));
    const path = join(dir, 'trail.jsonl');
    const old = process.umask(0);
    try {
      const trail = createAuditTrail({ sink: fileSink(path), now: Date.now, redact: (text) => text, log: silentLog });
      const call = trail.call({ scope: 'scope-1', tool: 'create_ad_campaign', request: campaign('Rotated') });
      await call.warned('daily budget 5.00 in the account currency');
      renameSync(path, `${path}.1`);
      await call.confirmed();
      expect(parseTrail(readFileSync(`${path}.1`, 'utf8')).map((line) => line.step)).toEqual(['warned']);
      expect(parseTrail(readFileSync(path, 'utf8')).map((line) => line.step)).toEqual(['confirmed']);
      expect(statSync(path).mode & 0o777).toBe(AUDIT_FILE_MODE);
    } finally {
      process.umask(old);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('warns at start-up when an existing trail file is readable or writable by others, and says how to fix it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-mode-'));
    const path = join(dir, 'trail.jsonl');
    const warnings: string[] = [];
    const log: Log = { ...silentLog, warn: (message) => warnings.push(message) };
    try {
      writeFileSync(path, '');
      for (const mode of [0o644, 0o620, 0o600]) {
        chmodSync(path, mode);
        await checkAuditFile(path, log);
      }
      expect(warnings).toEqual([
        `the audit trail ${JSON.stringify(path)} is readable or writable by others (mode 644); chmod 600 it`,
        `the audit trail ${JSON.stringify(path)} is readable or writable by others (mode 620); chmod 600 it`,
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops start-up at a path that is not a regular file: a symbolic link, a FIFO, a device, a directory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'audit-kinds-'));
    try {
      writeFileSync(join(dir, 'real.jsonl'), '');
      symlinkSync(join(dir, 'real.jsonl'), join(dir, 'link.jsonl'));
      execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
      const cases: Array<[path: string, kind: string]> = [
        [join(dir, 'link.jsonl'), 'a symbolic link, not a regular file; give the real path of the file \\(readlink -f prints it\\)'],
        [join(dir, 'fifo.jsonl'), 'a FIFO, not a regular file'],
        ['/dev/stdout', 'a symbolic link'],
        ['/dev/stderr', 'a symbolic link'],
        ['/dev/null', 'a device, not a regular file; give a file: /dev/null would discard the trail'],
        [dir, 'a directory'],
      ];
      for (const [path, kind] of cases) {
        await expect(checkAuditFile(path, silentLog), path).rejects.toThrow(new RegExp(`^APPMGMT_AUDIT_LOG "${path.replace(/[.\\/]/g, '\\$&')}" is ${kind}`));
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('stops a stdio server at start-up when the trail would go to /dev/stdout, the MCP stream, and writes nothing there', async () => {
    const exit = await runNode([BIN], { env: { ...process.env, APPMGMT_AUDIT_LOG: '/dev/stdout' } });
    expect(exit.code).toBe(2);
    expect(exit.stdout).toBe('');
    expect(exit.stderr).toMatch(/APPMGMT_AUDIT_LOG "\/dev\/stdout" is a symbolic link, not a regular file/);
  });

  it('fails a write that does not finish in time: the confirmation is refused, not held', async () => {
    const stuck = { append: () => new Promise<void>(() => undefined) };
    const trail = createAuditTrail({ sink: deadlineSink(stuck, 50), now: Date.now, redact: (text) => text, log: silentLog });
    const call = trail.call({ scope: 'scope-1', tool: 'create_ad_campaign', request: campaign('Stalled disk') });
    await expect(call.confirmed()).rejects.toBeInstanceOf(AuditUnwritableError);
    await expect(deadlineSink(stuck, 50).append('line\n')).rejects.toThrow(/^the write did not finish within 50 ms$/);
  });

  it('stops start-up with the variable named when the file cannot be opened', async () => {
    await expect(checkAuditFile('/nonexistent-dir/trail.jsonl', silentLog)).rejects.toThrow(ConfigError);
    await expect(checkAuditFile('/nonexistent-dir/trail.jsonl', silentLog)).rejects.toThrow(/^APPMGMT_AUDIT_LOG "\/nonexistent-dir\/trail\.jsonl" cannot be opened for appending/);
  });

  it('writes to stderr as lines of their own, marked audit:, that parse after the mark', async () => {
    let written = '';
    const sink = stderrSink({ write: ((text: string, done: (error?: Error | null) => void) => ((written += text), done(), true)) as never });
    const trail = createAuditTrail({ sink, now: Date.now, redact: (text) => text, log: silentLog });
    await trail.call({ scope: 's', tool: 'delete_email_template', request: { app_id: 'app_demo', template_id: 'tpl_1' } }).warned('the template is gone for good');
    expect(written.startsWith(AUDIT_PREFIX)).toBe(true);
    expect(written.endsWith('}\n')).toBe(true);
    expect(AuditLineSchema.parse(JSON.parse(written.slice(AUDIT_PREFIX.length)))).toMatchObject({ step: 'warned', template: 'tpl_1', app: 'app_demo' });
  });
});
