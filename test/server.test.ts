import { afterEach, describe, expect, it } from 'vitest';
import { startSandbox } from '../src/sandbox/http.js';
import { connect, type Harness } from './helpers.js';

describe('server modes and boundary', () => {
  let h: Harness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  it('registers only the read tools in read-only mode', async () => {
    h = await connect({ config: { readOnly: true } });
    const names = (await h.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual([
      'check_connection',
      'get_workspace_analytics',
      'preview_app_email',
      'list_email_templates',
      'get_email_template',
      'list_ad_campaigns',
      'get_ad_campaign',
      'list_campaign_suggestions',
      'list_group_shares',
      'list_social_posts',
      'get_scheduling_job',
      'read_app_conversation',
    ]);
  });

  it('checks read-only mode again in every write handler, before anything is sent', async () => {
    h = await connect();
    h.config.readOnly = true; // as if the mode changed after the tools were registered
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/read-only mode \(APPMGMT_READ_ONLY\)\. Nothing was sent\./);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('enables only the named tools', async () => {
    h = await connect({ config: { tools: ['push_app_to_repo', 'get_scheduling_job'] } });
    const names = (await h.client.listTools()).tools.map((tool) => tool.name);
    // check_connection is always offered: it tells the user what is set up.
    expect(names).toEqual(['check_connection', 'get_scheduling_job', 'push_app_to_repo']);
  });

  it('refuses an unknown tool name and lists the valid ones', async () => {
    await expect(connect({ config: { tools: ['push_app', 'get_scheduling_job'] } })).rejects.toThrow(
      /Unknown tool push_app .*Valid names: check_connection, get_workspace_analytics, customize_app_email/,
    );
  });

  it('offers only the toolsets asked for, and check_connection always', async () => {
    h = await connect({ config: { toolsets: ['repo', 'chat'] } });
    const names = (await h.client.listTools()).tools.map((tool) => tool.name);
    expect(names).toEqual(['check_connection', 'pull_repo_changes', 'resolve_repo_conflicts', 'push_app_to_repo', 'send_app_chat_message', 'read_app_conversation']);
    await h.close();
    h = await connect({ config: { toolsets: ['campaigns'], readOnly: true } });
    expect((await h.client.listTools()).tools.map((tool) => tool.name)).toEqual(['check_connection', 'list_ad_campaigns', 'get_ad_campaign', 'list_campaign_suggestions']);
  });

  it('scopes every tool to one app: app_id leaves the schemas and is filled in', async () => {
    h = await connect({ config: { appId: 'app_scoped' } });
    const { tools } = await h.client.listTools();
    for (const tool of tools) expect(Object.keys(tool.inputSchema.properties ?? {}), tool.name).not.toContain('app_id');
    h.sandbox.script({ status: 200, body: { success: true, commits_pushed: false, commit_hash: null, error: null } });
    await h.call('push_app_to_repo', {});
    expect(h.sandbox.requests[0]?.rawPath).toBe('/api/apps/app_scoped/repohost/sync/manual');
  });

  it('refuses app_id as an unknown key when scoped, instead of acting on another app', async () => {
    h = await connect({ config: { appId: 'app_scoped' } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_other' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/app_id/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('answers invalid input with an error naming the field, and sends nothing', async () => {
    h = await connect();
    const result = await h.call('push_app_to_repo', { app_id: 42 });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/app_id/);
    expect(h.sandbox.requests).toHaveLength(0);
  });

  it('redacts every configured secret from results, even when the API echoes it', async () => {
    h = await connect({ config: { accessToken: 'sekret-token-1' } });
    h.sandbox.script({ status: 200, body: { success: false, commits_pushed: false, commit_hash: null, error: 'bad token sekret-token-1' } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.text).not.toContain('sekret-token-1');
    expect(result.text).toContain('[redacted]');
  });

  it('marks every result as coming from the sandbox when it does', async () => {
    h = await connect({ config: { sandbox: true } });
    h.sandbox.script({ status: 404, body: { detail: 'Not Found' } });
    const result = await h.call('push_app_to_repo', { app_id: 'nope' });
    expect(result.text.startsWith('[sandbox] ')).toBe(true);
  });

  it('turns an unexpected answer shape into a clear error', async () => {
    h = await connect();
    h.sandbox.script({ status: 200, body: { unexpected: true } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/unexpected shape/);
  });

  it('says the base URL may be wrong when a 404 is not the API\'s own error', async () => {
    const wrong = await startSandbox({ control: true });
    h = await connect({ sandbox: wrong, config: { baseUrl: `${wrong.url}/api` } });
    const result = await h.call('push_app_to_repo', { app_id: 'app_demo' });
    expect(result.isError).toBe(true);
    expect(result.text).toMatch(/^404 from something that is not the API .*Set APPMGMT_BASE_URL to the service's origin/);
    for (const body of ['<html><body>404 Not Found</body></html>', undefined, { message: 'Cannot POST /x' }]) {
      h.sandbox.script({ status: 404, ...(body === undefined ? {} : { body }) });
      expect((await h.call('push_app_to_repo', { app_id: 'app_demo' })).text).toMatch(/APPMGMT_BASE_URL/);
    }
    h.sandbox.script({ status: 404, body: { detail: 'App not found.' } });
    expect((await h.call('push_app_to_repo', { app_id: 'app_demo' })).text).toMatch(/^404: App not found/);
    await h.close();
    h = undefined;
    await wrong.close();
  });

  it('sends the server instructions in the initialize answer', async () => {
    h = await connect();
    expect(h.client.getInstructions()).toMatch(/confirm: true/);
  });
});
