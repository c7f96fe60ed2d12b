import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connect, type Harness } from '../helpers.js';

/** Every list tool lets the model reach every row: each part names the call for the next one. */
describe('list tools reach every row', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  async function walk(tool: string, body: unknown[], rowsOf: (structured: Record<string, unknown>) => Array<Record<string, string>>, id: string) {
    const seen: string[] = [];
    let skip: number | undefined;
    for (let part = 0; part < 10; part++) {
      h.sandbox.script({ status: 200, body });
      const result = await h.call(tool, { app_id: 'app_demo', ...(skip !== undefined ? { skip } : {}) });
      expect(result.isError).toBe(false);
      seen.push(...rowsOf(result.structured!).map((row) => row[id]!));
      skip = result.structured?.next_skip as number | undefined;
      if (skip === undefined) return { seen, last: result };
      expect(result.text).toContain(`"skip":${skip}`);
      expect(result.structured?.next).toContain(`"skip":${skip}`);
    }
    throw new Error(`${tool} never reached its last row`);
  }

  it('list_email_templates, 60 templates in parts of at most 20', async () => {
    const body = Array.from({ length: 60 }, (_, index) => ({ id: `tpl_${index}`, name: `T${index}`, subject: `S${index}`, updated_date: '2026-11-01T00:00:00Z' }));
    const { seen, last } = await walk('list_email_templates', body, (structured) => structured.templates as Array<Record<string, string>>, 'template_id');
    expect(seen).toEqual(body.map((row) => row.id));
    expect(last.text).toContain('41 to 60 shown');
  });

  it('list_group_shares, 60 shares in parts of at most 25', async () => {
    const body = Array.from({ length: 60 }, (_, index) => ({ id: `gsh_${index}`, group_id: `grp_${index}`, group_name: `G${index}`, role: null, created_date: '2026-11-01T00:00:00Z' }));
    const { seen, last } = await walk('list_group_shares', body, (structured) => structured.shares as Array<Record<string, string>>, 'share_id');
    expect(seen).toEqual(body.map((row) => row.id));
    expect(last.text).toMatch(/\d+ to 60 shown/);
  });

  it('list_social_posts, 60 posts in parts of at most 12', async () => {
    const body = Array.from({ length: 60 }, (_, index) => ({
      id: `post_${String(index).padStart(2, '0')}`,
      platform: 'instagram',
      status: 'proposal',
      scheduled_at: new Date(Date.UTC(2026, 11, 1) + index * 3_600_000).toISOString(),
      title: `Post ${index}`,
    }));
    const { seen, last } = await walk('list_social_posts', body, (structured) => structured.posts as Array<Record<string, string>>, 'id');
    expect(seen).toEqual(body.map((row) => row.id));
    expect(last.text).toMatch(/Posts \d+ to 60 of them:/);
  });

  it('says so, rather than showing nothing silently, when skip passes the end', async () => {
    h.sandbox.script({ status: 200, body: [{ id: 'gsh_1', group_id: 'grp_1', role: null }] });
    const result = await h.call('list_group_shares', { app_id: 'app_demo', skip: 5 });
    expect(result.text).toContain('None after the first 5: call again with a smaller skip');
  });
});
