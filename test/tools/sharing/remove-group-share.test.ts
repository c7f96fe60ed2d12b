import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../../helpers.js';

const PATH = '/api/apps/app_demo/group-shares/gsh_2';

describe('remove_group_share', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  const remove = (args: Record<string, unknown> = {}) => h.call('remove_group_share', { app_id: 'app_demo', share_id: 'gsh_2', ...args });

  it('deletes the share at once (no confirmation) with the bearer token, and says who loses access', async () => {
    h.sandbox.script({ status: 200, body: { removed: true } });
    const result = await remove();
    expect(h.sandbox.requests).toHaveLength(1);
    const [request] = h.sandbox.requests;
    expect(request?.method).toBe('DELETE');
    expect(request?.rawPath).toBe(PATH);
    expect(request?.headers.authorization).toBe(`Bearer ${h.config.accessToken}`);
    expect(request?.headers['x-request-id']).toBeUndefined();
    expect(request?.body).toBeUndefined();
    expect(result.isError).toBe(false);
    expect(result.structured).toEqual({
      share_id: 'gsh_2',
      removed: true,
      next: 'Nothing more is needed; list_group_shares {"app_id":"app_demo"} shows the remaining shares.',
    });
    expect(result.text).toMatchInlineSnapshot(`
      "Removed share gsh_2 from app app_demo.
      Members who had access only through this group lost it; the others keep their highest remaining role (direct or through another shared group).
      Next: Nothing more is needed; list_group_shares {"app_id":"app_demo"} shows the remaining shares."
    `);
  });

  it('is a failure when the service answers removed: false, and says a retry is safe', async () => {
    h.sandbox.script({ status: 200, body: { removed: false } });
    const result = await remove();
    expect(result.isError).toBe(true);
    expect(result.text).toContain('was not removed; the share is unchanged, so a retry is safe');
  });

  it('removes the share of the default world, after which it is no longer listed', async () => {
    const list = await h.call('list_group_shares', { app_id: 'app_demo' });
    const shareId = (list.structured?.shares as Array<{ share_id: string }>)[0]!.share_id;
    const result = await h.call('remove_group_share', { app_id: 'app_demo', share_id: shareId });
    expect(result.isError).toBe(false);
    expect((await h.call('list_group_shares', { app_id: 'app_demo' })).structured?.total).toBe(0);
    const again = await h.call('remove_group_share', { app_id: 'app_demo', share_id: shareId });
    expect(again.text).toMatch(/^404: App or share not found: the share may already be removed\. list_group_shares shows the current ones\./);
  });

  describe('errors', () => {
    it.each([
      [401, /^401: The access token is missing, invalid or expired/],
      [403, /^403: Not allowed: removing a share needs editor access to the app and an editor or admin role in the workspace\. The share is unchanged\./],
      [404, /^404: App or share not found: the share may already be removed/],
    ])('explains %i for this operation', async (status, expected) => {
      h.sandbox.script({ status, body: { detail: 'Denied by the service' } });
      const result = await remove();
      expect(result.isError).toBe(true);
      expect(result.text).toMatch(expected);
    });

    it('names the read-only token and says the share is unchanged', async () => {
      // Its own harness: the client remembers a read-only token, and this file's harness keeps the full-access one.
      const ro = await connect({ config: { accessToken: 'pat_demo_owner_ro' } });
      try {
        const result = await ro.call('remove_group_share', { app_id: 'app_demo', share_id: 'gsh_seed_support' });
        expect(result.text).toContain('Removing a share needs a full-access token');
      } finally {
        await ro.close();
      }
    });

    it('retries a 429 and a 503, since a failed removal keeps the share', async () => {
      h.sandbox.script({ status: 429, headers: { 'retry-after': '0' } });
      h.sandbox.script({ status: 503 });
      h.sandbox.script({ status: 200, body: { removed: true } });
      const result = await remove();
      expect(h.sandbox.requests).toHaveLength(3);
      expect(result.isError).toBe(false);
    });
  });

  it.each([
    [{ app_id: 'app_demo' }, 'share_id'],
    [{ app_id: 'app_demo', share_id: '' }, 'share_id'],
    [{ app_id: 'app_demo', share_id: 'gsh_2', confirm: true }, 'confirm'],
  ])('rejects invalid input %j naming the field, and sends nothing', async (args, field) => {
    const result = await h.call('remove_group_share', args);
    expect(result.isError).toBe(true);
    expect(result.text).toContain(field);
    expect(h.sandbox.requests).toHaveLength(0);
  });
});
