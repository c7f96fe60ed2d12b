import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiClient, READ_ONLY_REMEMBERED_MS } from '../../src/api/client.js';
import { ApiError, CancelledError, ConfigError, ReadOnlyCredentialError, UnreachableError } from '../../src/errors.js';
import { silentLog } from '../../src/log.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { sandboxConfig } from '../helpers.js';

const job = { job_id: 'job_1', status: 'running', phase: 'prepare', result: null, error: null };

describe('api client', () => {
  let sandbox: Sandbox;
  const client = (overrides = {}) =>
    createApiClient({ config: sandboxConfig(sandbox, overrides), log: silentLog, retryDelayMs: () => 0 });

  beforeAll(async () => {
    sandbox = await startSandbox();
  });
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  it('remembers a credential the service answered as read-only for an hour, and sends no change with it meanwhile', async () => {
    let now = 1_000_000;
    const api = createApiClient({ config: sandboxConfig(sandbox, { accessToken: 'pat_demo_owner_ro' }), log: silentLog, retryDelayMs: () => 0, now: () => now });
    const refused = await api.pauseAdCampaign('app_demo', 'cmp_demo').catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 403, credential: 'accessToken' });
    expect(api.readOnlySince('accessToken')).toBe(now);
    expect(api.readOnlySince('apiKey')).toBeUndefined();
    const sent = sandbox.requests.length;
    await expect(api.resumeAdCampaign('app_demo', 'cmp_demo')).rejects.toBeInstanceOf(ReadOnlyCredentialError);
    // Reads still go: some work with a read-only token, and those that do not say so themselves.
    await expect(api.getAdCampaign('app_demo', 'cmp_demo')).resolves.toMatchObject({ id: 'cmp_demo' });
    expect(sandbox.requests).toHaveLength(sent + 1);
    now += READ_ONLY_REMEMBERED_MS;
    expect(api.readOnlySince('accessToken')).toBeUndefined();
    await expect(api.resumeAdCampaign('app_demo', 'cmp_demo')).rejects.toMatchObject({ status: 403 });
    expect(sandbox.requests).toHaveLength(sent + 2);
  });

  it('retries a GET on 503 at most twice', async () => {
    sandbox.script({ status: 503, times: 2 });
    sandbox.script({ status: 200, body: job });
    await expect(client().getSchedulingJob('app_1', 'job_1')).resolves.toMatchObject({ status: 'running' });
    expect(sandbox.requests).toHaveLength(3);
  });

  it('gives up after two retries', async () => {
    sandbox.script({ status: 502, times: 5 });
    await expect(client().getSchedulingJob('app_1', 'job_1')).rejects.toMatchObject({ status: 502 });
    expect(sandbox.requests).toHaveLength(3);
  });

  it('retries the idempotent POSTs on a dropped connection', async () => {
    sandbox.script({ status: 200, drop: true });
    sandbox.script({ status: 200, body: { success: true, commits_pushed: false, commit_hash: null, error: null } });
    await expect(client().pushAppToRepo('app_1')).resolves.toMatchObject({ success: true });
    expect(sandbox.requests).toHaveLength(2);
  });

  it('never retries campaign creation, whatever the failure', async () => {
    sandbox.script({ status: 503 });
    await expect(client().createAdCampaign('app_1', { campaign_name: 'x' })).rejects.toMatchObject({ status: 503 });
    sandbox.script({ status: 429, headers: { 'retry-after': '0' } });
    await expect(client().createAdCampaign('app_1', { campaign_name: 'x' })).rejects.toMatchObject({ status: 429 });
    sandbox.script({ status: 200, drop: true });
    await expect(client().createAdCampaign('app_1', { campaign_name: 'x' })).rejects.toBeInstanceOf(UnreachableError);
    expect(sandbox.requests).toHaveLength(3);
  });

  it('never retries conflict resolution', async () => {
    sandbox.script({ status: 504 });
    await expect(client().resolveRepoConflicts('app_1')).rejects.toMatchObject({ status: 504 });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('honours a short Retry-After on 429 and retries', async () => {
    sandbox.script({ status: 429, headers: { 'retry-after': '0' } });
    sandbox.script({ status: 200, body: [] });
    await expect(client().listCampaignSuggestions('app_1', 'cmp_1')).resolves.toEqual([]);
    expect(sandbox.requests).toHaveLength(2);
  });

  it('returns a 429 whose Retry-After is too long at once, with the wait', async () => {
    sandbox.script({ status: 429, headers: { 'retry-after': '120' }, body: { detail: 'slow down' } });
    const error = await client().listCampaignSuggestions('app_1', 'cmp_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 429, retryAfterSeconds: 120 });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('sends nothing without the credential the operation needs, and names the variable', async () => {
    const api = client({ apiKey: undefined, monitoringApiKey: undefined, accessToken: undefined });
    await expect(api.getSchedulingJob('app_1', 'job_1')).rejects.toThrow(ConfigError);
    await expect(api.getSchedulingJob('app_1', 'job_1')).rejects.toThrow(/Set APPMGMT_API_KEY or APPMGMT_ACCESS_TOKEN/);
    await expect(api.getWorkspaceAnalytics('ws_1')).rejects.toThrow(/APPMGMT_MONITORING_API_KEY/);
    await expect(api.pushAppToRepo('app_1')).rejects.toThrow(/APPMGMT_ACCESS_TOKEN/);
    expect(sandbox.requests).toHaveLength(0);
  });

  it('sends the access token as Bearer on social-calendar operations when no API key is set', async () => {
    sandbox.script({ status: 200, body: job });
    await client({ apiKey: undefined }).getSchedulingJob('app_1', 'job_1');
    expect(sandbox.requests[0]?.headers.authorization).toBe(`Bearer ${sandbox.simulation.credentials.accessToken}`);
    expect(sandbox.requests[0]?.headers.api_key).toBeUndefined();
  });

  it('sends the monitoring health check with no credential at all', async () => {
    sandbox.script({ status: 200, body: { status: 'healthy' } });
    await client().monitoringHealth();
    expect(sandbox.requests[0]?.rawPath).toBe('/api/v1/monitoring/health');
    expect(sandbox.requests[0]?.headers.authorization).toBeUndefined();
    expect(sandbox.requests[0]?.headers.api_key).toBeUndefined();
  });

  it('sends a query, an X-Request-ID and a 202 where the operation says so', async () => {
    sandbox.script({ status: 202, body: { job_id: 'job_9' } });
    await expect(client().startSchedulingPosts('app_1', { scheduled_from: '2026-12-01T00:00:00Z', scheduled_until: '2026-12-08T00:00:00Z' })).resolves.toEqual({ job_id: 'job_9' });
    sandbox.script({ status: 200, body: { queued: true } });
    await client().sendAppChatMessage('app_1', 'hello', 'req-123');
    sandbox.script({ status: 200, body: [] });
    await client().listAdCampaigns('app_1', false);
    const [start, chat, list] = sandbox.requests;
    expect(start?.body).toEqual({ scheduled_from: '2026-12-01T00:00:00Z', scheduled_until: '2026-12-08T00:00:00Z' });
    expect(chat?.headers['x-request-id']).toBe('req-123');
    expect(chat?.body).toEqual({ content: 'hello' });
    expect([list?.rawPath, list?.query]).toEqual(['/api/apps/app_1/adnet-ads/campaigns', 'include_metrics=false']);
  });

  it('sends the bearer token or the api_key header as the operation requires', async () => {
    sandbox.script({ status: 200, body: job });
    sandbox.script({ status: 200, body: { summary: {} } });
    sandbox.script({ status: 200, body: [] });
    const api = client();
    await api.getSchedulingJob('app_1', 'job_1');
    await api.getWorkspaceAnalytics('ws_1');
    await api.listCampaignSuggestions('app_1', 'cmp_1');
    const [jobRequest, monitoring, suggestions] = sandbox.requests;
    expect(jobRequest?.headers.api_key).toBe(sandbox.simulation.credentials.apiKey);
    expect(jobRequest?.headers.authorization).toBeUndefined();
    expect(monitoring?.rawPath).toBe('/api/v1/monitoring/analytics/ws_1');
    expect(monitoring?.headers.api_key).toBe(sandbox.simulation.credentials.monitoringApiKey);
    expect(suggestions?.headers.authorization).toBe(`Bearer ${sandbox.simulation.credentials.accessToken}`);
  });

  it('does not follow redirects, so credentials never travel to another origin', async () => {
    sandbox.script({ status: 302, headers: { location: 'http://127.0.0.2:1/steal' } });
    await expect(client().getSchedulingJob('app_1', 'job_1')).rejects.toMatchObject({ status: 302 });
    expect(sandbox.requests).toHaveLength(1);
  });

  it('times out a hung request with the configured timeout', async () => {
    sandbox.script({ status: 200, hang: true });
    const error = await client({ resolveTimeoutMs: 50 }).resolveRepoConflicts('app_1').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnreachableError);
    expect(error).toMatchObject({ kind: 'timeout' });
    sandbox.release();
  });

  it('aborts the HTTP request when the signal fires', async () => {
    sandbox.script({ status: 200, hang: true });
    const controller = new AbortController();
    const pending = client().resolveRepoConflicts('app_1', { signal: controller.signal }).catch((e: unknown) => e);
    while (sandbox.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await pending).toBeInstanceOf(CancelledError);
    sandbox.release();
  });

  it('refuses path segments that are dot segments', async () => {
    await expect(client().pushAppToRepo('..')).rejects.toThrow(/app_id: must be an ID/);
    expect(sandbox.requests).toHaveLength(0);
  });
});
