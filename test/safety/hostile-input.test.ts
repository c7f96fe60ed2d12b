import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
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

// Every request path the client may send: fixed segments plus encoded IDs.
const SEGMENT = "[A-Za-z0-9%._~!$&'()*+,;=:@-]+";
const PATHS = [
  `/api/apps/${SEGMENT}/emails/system/${SEGMENT}/materialize`,
  `/api/apps/${SEGMENT}/adnet-ads/campaigns`,
  `/api/apps/${SEGMENT}/adnet-ads/campaigns/${SEGMENT}/optimization-suggestions`,
  `/api/apps/${SEGMENT}/group-shares`,
  `/api/apps/${SEGMENT}/social-calendar/posts/schedule/${SEGMENT}`,
  `/api/apps/${SEGMENT}/repohost/sync/resolve-conflicts`,
  `/api/apps/${SEGMENT}/repohost/sync/manual`,
  `/api/v1/monitoring/analytics/${SEGMENT}`,
].map((path) => new RegExp(`^${path}$`));

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
        fc.dictionary(fc.constantFrom('app_id', 'job_id', 'campaign_id', 'workspace_id', 'email_type', 'group_ids', 'role', 'wait_seconds', 'confirm', 'daily_budget_micros', 'x', '__proto__', 'constructor'), anyValue, { maxKeys: 6 }),
        async (name, args) => {
          const result = await h.call(name, args);
          expect(typeof result.text).toBe('string');
          expect(result.text.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 150, seed: 20261122 },
    );
    for (const request of h.sandbox.requests) {
      expect(PATHS.some((pattern) => pattern.test(request.rawPath)), request.rawPath).toBe(true);
      for (const segment of request.rawPath.split('/')) expect(['.', '..'].includes(decodeURIComponent(segment))).toBe(false);
    }
    expect(stdout).not.toHaveBeenCalled();
    stdout.mockRestore();
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
