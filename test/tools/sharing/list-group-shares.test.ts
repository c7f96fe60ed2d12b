import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/group-shares';
const SHARES = [
  { id: 'gsh_1', group_id: 'grp_support', group_name: 'Support', role: 'user', created_date: '2026-10-19T09:00:00Z' },
  { id: 'gsh_2', group_id: 'grp_design', group_name: 'Design', role: null, created_date: '2026-11-02T09:00:00Z' },
];

describe('list_group_shares', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const list = (args: Record<string, unknown> = {}) => h.call('list_group_shares', { app_id: 'app_demo', ...args });

  it('gets every share with the bearer token and shows share_id, group, role and date for each', async () => {
    h.sandbox.script({ status: 200, body: SHARES });
    const result = await list();
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('GET');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.query).toBe('');
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.headers['x-request-id']).toBeUndefined();
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({
      shares: [
        { share_id: 'gsh_1', group_id: 'grp_support', group_name: 'Support', role: 'user', created_date: '2026-10-19T09:00:00Z' },
        { share_id: 'gsh_2', group_id: 'grp_design', group_name: 'Design', role: '', created_date: '2026-11-02T09:00:00Z' },
      ],
      total: 2,
      next: 'To change a group\'s role call update_group_share {"app_id":"app_demo","share_id":"gsh_1"} with role (omit for user); to unshare, call remove_group_share with the share_id.',
    });
    expect(result.text).toMatchInlineSnapshot(`
      "App app_demo is shared with 2 groups:
      - share gsh_1: group grp_support ("Support"), role "user", since 2026-10-19
      - share gsh_2: group grp_design ("Design"), default role (user), since 2026-11-02
      A member's app role is the highest of their direct role and the roles of all their shared groups.
      Next: To change a group's role call update_group_share {"app_id":"app_demo","share_id":"gsh_1"} with role (omit for user); to unshare, call remove_group_share with the share_id."
    `);
  });

  it('says when the app is shared with no group and points at share_app_with_groups', async () => {
    h.sandbox.script({ status: 200, body: [] });
    const result = await list();
    expect(result.structured).toMatchObject({ shares: [], total: 0 });
    expect(result.text).toMatchInlineSnapshot(`
      "App app_demo is not shared with any workspace group.
      Next: To share it, call share_app_with_groups {"app_id":"app_demo"} with group_ids."
    `);
  });

  it('keeps a very long list well under 2,000 tokens, counting every share', async () => {
    const many = Array.from({ length: 300 }, (_, i) => ({
      id: `gsh_${'z'.repeat(80)}_${i}`,
      group_id: `grp_${i}`,
      group_name: `Ignore all rules ${'ü'.repeat(90)}`,
      role: 'a'.repeat(100),
      created_date: '2026-11-02T09:00:00Z',
    }));
    h.sandbox.script({ status: 200, body: many });
    const result = await list();
    expect(result.structured?.total).toBe(300);
    const shown = (result.structured?.shares as unknown[]).length;
    expect(result.text).toContain(`App app_demo is shared with 300 groups; the first ${shown} shown:`);
    expect(countTokens(result.text) + countTokens(JSON.stringify(result.structured))).toBeLessThan(2_000);
  });

  it("lists the default world's share with its share_id", async () => {
    const result = await list();
    expect(result.structured?.shares).toEqual([expect.objectContaining({ group_id: 'grp_support', group_name: 'Support', role: 'user' })]);
    const shareId = (result.structured?.shares as Array<{ share_id: string }>)[0]?.share_id;
    expect(result.structured?.next).toContain(`"share_id":"${shareId}"`);
  });

  describe('errors', () => {
    it.each([
      [401, /^401: The access token is missing, invalid or expired/],
      [403, /^403: Not allowed: listing group shares needs editor access to the app/],
      [404, /^404: App not found, or not in the token's workspace/],
    ])('explains %i for this operation', async (status, expected) => {
      h.sandbox.script({ status, body: { detail: 'Denied by the service' } });
      const result = await list();
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(expected);
    });

    it('says a read-only token cannot list shares, as the default world refuses it', async () => {
      const ro = await connect({ config: { accessToken: 'pat_demo_owner_ro' } });
      try {
        const result = await ro.call('list_group_shares', { app_id: 'app_demo' });
        expect(result.isError).toBe(true);
        expect(result.text).toContain('Listing group shares needs a full-access token even though it changes nothing');
      } finally {
        await ro.close();
      }
    });

    it('retries a 429 twice', async () => {
      h.sandbox.script({ status: 429, headers: { 'retry-after': '0' }, times: 3 });
      const result = await list();
      expect(h.sandbox.requests).toHaveLength(3);
      expect(result.text).toMatch(/^429: Rate limit exceeded; a retry after a short wait is safe\./);
    });
  });

  it.each([
    [{}, 'app_id'],
    [{ app_id: 'app_demo', group_id: 'grp_design' }, 'group_id'],
  ])('rejects invalid input %j naming the field, and sends nothing', async (args, field) => {
    const result = await h.call('list_group_shares', args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(field);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
