import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { TOOLS } from '../../src/tools/index.js';
import { connect, type Harness } from '../helpers.js';

/** The tools walked below: every tool that takes `skip`. */
const PAGING = ['list_email_templates', 'list_group_shares', 'list_social_posts', 'list_ad_campaigns', 'list_campaign_suggestions', 'read_app_conversation'];

/** The six tools that page let the model reach every row, in parts of a known size; each part names the call for the next one. */
describe('list tools reach every row', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await connect();
  });
  afterAll(() => h.close());
  beforeEach(() => h.sandbox.reset());

  type Row = Record<string, unknown>;

  /**
   * Follows `next_skip` from the first part to the last, answering each request with `answer(skip)`,
   * and returns the ids each part showed; every part's step names the call for the next one.
   */
  async function walk(tool: string, args: Row, answer: (skip: number) => unknown, rowsOf: (structured: Row) => Row[], id: string) {
    const parts: string[][] = [];
    let skip = 0;
    for (let part = 0; part < 10; part++) {
      h.sandbox.script({ status: 200, body: answer(skip) });
      const result = await h.call(tool, { ...args, ...(skip > 0 ? { skip } : {}) });
      expect(result.isError, result.text).toBe(false);
      const shown = rowsOf(result.structured!).map((row) => row[id] as string);
      parts.push(shown);
      const next = result.structured?.next_skip as number | undefined;
      if (next === undefined) return { parts, last: result };
      expect(next).toBe(skip + shown.length);
      expect(result.text).toContain(`"skip":${next}`);
      expect(result.structured?.next).toContain(`"skip":${next}`);
      skip = next;
    }
    throw new Error(`${tool} never reached its last row`);
  }

  const sizes = (parts: string[][]) => parts.map((part) => part.length);
  const fixed = (body: unknown[]) => () => body;

  it('list_email_templates, 55 templates in parts of 20', async () => {
    const body = Array.from({ length: 55 }, (_, index) => ({ id: `tpl_${index}`, name: `T${index}`, subject: `S${index}`, updated_date: '2026-11-01T00:00:00Z' }));
    const { parts, last } = await walk('list_email_templates', { app_id: 'app_demo' }, fixed(body), (structured) => structured.templates as Row[], 'template_id');
    expect(sizes(parts)).toEqual([20, 20, 15]);
    expect(parts.flat()).toEqual(body.map((row) => row.id));
    expect(last.text).toContain('41 to 55 shown');
  });

  it('list_group_shares, 60 shares in parts of 25', async () => {
    const body = Array.from({ length: 60 }, (_, index) => ({ id: `gsh_${index}`, group_id: `grp_${index}`, role: 'editor' }));
    const { parts, last } = await walk('list_group_shares', { app_id: 'app_demo' }, fixed(body), (structured) => structured.shares as Row[], 'share_id');
    expect(sizes(parts)).toEqual([25, 25, 10]);
    expect(parts.flat()).toEqual(body.map((row) => row.id));
    expect(last.text).toContain('51 to 60 shown');
  });

  it('list_social_posts, 50 posts in parts of 12', async () => {
    const body = Array.from({ length: 50 }, (_, index) => ({
      id: `post_${String(index).padStart(2, '0')}`,
      platform: 'instagram',
      status: 'proposal',
      scheduled_at: new Date(Date.UTC(2026, 11, 1) + index * 3_600_000).toISOString(),
      title: `Post ${index}`,
    }));
    const { parts, last } = await walk('list_social_posts', { app_id: 'app_demo' }, fixed(body), (structured) => structured.posts as Row[], 'id');
    expect(sizes(parts)).toEqual([12, 12, 12, 12, 2]);
    expect(parts.flat()).toEqual(body.map((row) => row.id));
    expect(last.text).toContain('Posts 49 to 50 of them:');
  });

  it('list_ad_campaigns, 45 campaigns in parts of 25', async () => {
    const body = Array.from({ length: 45 }, (_, index) => ({ id: `cmp_${index}`, campaign_name: `C${index}`, campaign_type: 'SMART', status: 'ENABLED', daily_budget_micros: 20_000_000 }));
    const { parts, last } = await walk('list_ad_campaigns', { app_id: 'app_demo' }, fixed(body), (structured) => structured.campaigns as Row[], 'campaign_id');
    expect(sizes(parts)).toEqual([25, 20]);
    expect(parts.flat()).toEqual(body.map((row) => row.id));
    expect(last.text).toContain('Rows 26-45:');
  });

  it('list_campaign_suggestions, 70 suggestions in parts of 30', async () => {
    const body = Array.from({ length: 70 }, (_, index) => ({ id: `sug_${index}`, severity: 'high', title: `S${index}`, action: null }));
    const rowsOf = (structured: Row) => [...(structured.high as Row[]), ...(structured.medium as Row[]), ...(structured.low as Row[])];
    const { parts } = await walk('list_campaign_suggestions', { app_id: 'app_demo', campaign_id: 'cmp_1' }, fixed(body), rowsOf, 'id');
    expect(sizes(parts)).toEqual([30, 30, 10]);
    expect(parts.flat()).toEqual(body.map((row) => row.id));
  });

  it('read_app_conversation, 55 messages in parts of 10, newest part first', async () => {
    // The service pages the conversation itself: `skip` newest messages left out, then `limit` (10) before them.
    const messages = Array.from({ length: 55 }, (_, index) => ({ id: `msg_${index}`, role: index % 2 ? 'assistant' : 'user', content: `message ${index}`, hidden: false, tool_calls: [] }));
    const answer = (skip: number) => ({ messages: messages.slice(Math.max(0, messages.length - skip - 10), messages.length - skip) });
    const { parts } = await walk('read_app_conversation', { app_id: 'app_demo' }, answer, (structured) => structured.messages as Row[], 'content');
    expect(sizes(parts)).toEqual([10, 10, 10, 10, 10, 5]);
    // Each part is oldest first; the parts go back in time, so read in reverse they are the whole conversation.
    expect(parts.reverse().flat()).toEqual(messages.map((message) => message.content));
    const asked = h.sandbox.requests.filter((request) => request.rawPath.startsWith('/api/apps/app_demo/chat/full-conversation'));
    expect(asked.map((request) => new URLSearchParams(request.query).get('skip') ?? '0')).toEqual(['0', '10', '20', '30', '40', '50']);
  });

  it('walks every tool that takes skip', () => {
    expect(TOOLS.filter((tool) => 'skip' in tool.input).map((tool) => tool.name).sort()).toEqual([...PAGING].sort());
  });

  it('says so, rather than showing nothing silently, when skip passes the end', async () => {
    h.sandbox.script({ status: 200, body: [{ id: 'gsh_1', group_id: 'grp_1', role: null }] });
    const result = await h.call('list_group_shares', { app_id: 'app_demo', skip: 5 });
    expect(result.text).toContain('None after the first 5: call again with a smaller skip');
  });
});
