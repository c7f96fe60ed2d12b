import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { paths } from '../../src/api/paths.js';
import { connect, type Harness } from '../helpers.js';

// Hostile strings: huge, odd unicode, path tricks, control characters, injection attempts.
const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom('..', '.', '%2e%2e', 'a/../b', '../../admin', '?x=1', '#frag', 'a%2Fb', '\u0000', '\u202Eevil', '🙂'.repeat(50), ' ', '\\..\\'),
  fc.string({ minLength: 5_000, maxLength: 20_000 }),
);
const deep = fc.letrec((tie) => ({ node: fc.oneof({ depthSize: 'small' }, fc.integer(), fc.dictionary(fc.string({ maxLength: 5 }), tie('node'), { maxKeys: 3 })) })).node;
const anyValue = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(hostileString, { maxLength: 60 }), deep);

// Every request path the client may send: each path of paths.ts, with encoded IDs in its segments.
const SEGMENT = "[A-Za-z0-9%._~!$&'()*+,;=:@-]+";
const PATHS = Object.values(paths).map((path) => {
  const sample = (path as (...ids: string[]) => string)(...Array.from({ length: path.length }, () => 'SEGMENT'));
  return new RegExp(`^${sample.split('SEGMENT').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(SEGMENT)}$`);
});

// Characters that hide or reorder text, and the forms an echoed secret can take.
const HIDDEN = ['\u200b', '\u200d', '\u2060', '\ufeff', '\u202e', '\u2066', '\u061c', '\u{e0041}', '\u{e007f}', '\u00ad'];
const HIDDEN_PATTERN = /[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u{e0000}-\u{e007f}]/u;
const SECRET = 'tok-Hostile-5e4d3c2b1a';
const secretForm = fc.constantFrom(
  SECRET,
  encodeURIComponent(`${SECRET}?`),
  Buffer.from(SECRET).toString('base64'),
  Buffer.from(`Bearer ${SECRET}`).toString('base64'),
  Buffer.from(`u:${SECRET}`).toString('base64url'),
  JSON.stringify(SECRET).slice(1, -1),
  SECRET.split('').join('\u200b'),
  SECRET.split('').join(' '),
);
const hiddenText = fc
  .array(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom(...HIDDEN)), { maxLength: 12 })
  .map((parts) => parts.join(''));
/** Upstream answers that carry text into a result, each with the text at a different place. */
const echoing = (text: string) => [
  { tool: 'push_app_to_repo', args: { app_id: 'app_demo' }, answer: { status: 200, body: { success: false, commits_pushed: false, commit_hash: null, error: text } } },
  { tool: 'push_app_to_repo', args: { app_id: 'app_demo' }, answer: { status: 200, body: { success: true, commits_pushed: true, commit_hash: text, error: null } } },
  { tool: 'get_scheduling_job', args: { app_id: 'app_demo', job_id: 'j' }, answer: { status: 200, body: { job_id: text, status: 'running', phase: text } } },
  { tool: 'customize_app_email', args: { app_id: 'app_demo', email_type: 'user_invite' }, answer: { status: 400, body: { detail: text } } },
  { tool: 'list_campaign_suggestions', args: { app_id: 'app_demo', campaign_id: 'c' }, answer: { status: 200, body: [{ id: text, severity: text, title: text, description: text, action: text }] } },
  { tool: 'get_workspace_analytics', args: { workspace_id: 'w' }, answer: { status: 200, body: { summary: { [text]: text }, credit_pool: { tier: text } } } },
];

describe('hostile input', () => {
  let h: Harness;
  let tools: Tool[];
  beforeAll(async () => {
    h = await connect();
    tools = (await h.client.listTools()).tools;
  });
  afterAll(() => h.close());

  it('never crashes, never writes to stdout and never sends an unencoded path segment', async () => {
    const stdout = vi.spyOn(process.stdout, 'write');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...tools.map((tool) => tool.name)),
        fc.dictionary(fc.constantFrom('app_id', 'job_id', 'campaign_id', 'workspace_id', 'email_type', 'group_ids', 'role', 'wait_seconds', 'confirm', 'daily_budget_micros', 'template_id', 'share_id', 'insight_id', 'content', 'from', 'until', 'scheduled_from', 'scheduled_until', 'limit', 'include_metrics', 'recommendation_resource_name', 'recommended_daily_budget_micros', 'x', '__proto__', 'constructor'), anyValue, { maxKeys: 6 }),
        async (name, args) => {
          const result = await h.call(name, args);
          expect(typeof result.text).toBe('string');
          expect(result.text.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 300, seed: 20261122 },
    );
    for (const request of h.sandbox.requests) {
      expect(PATHS.some((pattern) => pattern.test(request.rawPath)), request.rawPath).toBe(true);
      for (const segment of request.rawPath.split('/')) expect(['.', '..'].includes(decodeURIComponent(segment))).toBe(false);
    }
    expect(stdout).not.toHaveBeenCalled();
    stdout.mockRestore();
  });

  it('never shows hidden characters or an encoded secret that upstream text carries', async () => {
    const secretive = await connect({ config: { accessToken: SECRET } });
    try {
      await fc.assert(
        fc.asyncProperty(hiddenText, secretForm, hiddenText, fc.nat(echoing('').length - 1), async (before, secret, after, which) => {
          const { tool, args, answer } = echoing(`${before}${secret}${after}`)[which]!;
          secretive.sandbox.script({ ...answer, times: 3 });
          const result = await secretive.call(tool, args);
          secretive.sandbox.reset();
          const seen = `${result.text}\n${JSON.stringify(result.structured ?? {})}`;
          expect(seen).not.toMatch(HIDDEN_PATTERN);
          expect(seen).not.toContain(SECRET);
          expect(seen).not.toContain(SECRET.slice(0, 10));
          expect(seen).not.toContain(Buffer.from(SECRET).toString('base64').slice(0, 16));
        }),
        { numRuns: 200, seed: 20261123 },
      );
    } finally {
      await secretive.close();
    }
  });

  it('answers a wrongly typed value with an error that names the field, and sends nothing', async () => {
    for (const tool of tools) {
      const properties = (tool.inputSchema.properties ?? {}) as Record<string, { type?: string }>;
      for (const [field, schema] of Object.entries(properties)) {
        h.sandbox.reset();
        // A value of another JSON type than the field's own.
        const wrong = schema.type === 'object' || schema.type === 'array' ? 'not-a-container' : { nested: [1, 2, 3] };
        const result = await h.call(tool.name, { [field]: wrong });
        expect(result.isError, `${tool.name}.${field}`).toBe(true);
        expect(result.text, `${tool.name}.${field}`).toContain(field);
        expect(h.sandbox.requests, `${tool.name}.${field}`).toHaveLength(0);
      }
    }
  });

  it('refuses extra keys by name', async () => {
    for (const tool of tools) {
      const result = await h.call(tool.name, { sneaky_extra: 1 });
      expect(result.isError, tool.name).toBe(true);
      expect(result.text, tool.name).toContain('sneaky_extra');
    }
  });
});
