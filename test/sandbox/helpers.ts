import { afterAll, beforeAll, beforeEach } from 'vitest';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/http.js';

export interface Answer {
  status: number;
  // Tests read whatever the sandbox answered.
  body: any;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  apiKey?: string;
  body?: unknown;
}

export const paths = {
  email: (app: string, type: string) => `/api/apps/${app}/emails/system/${type}/materialize`,
  campaigns: (app: string) => `/api/apps/${app}/adnet-ads/campaigns`,
  suggestions: (app: string, campaign: string) => `/api/apps/${app}/adnet-ads/campaigns/${campaign}/optimization-suggestions`,
  shares: (app: string) => `/api/apps/${app}/group-shares`,
  job: (app: string, job: string) => `/api/apps/${app}/social-calendar/posts/schedule/${job}`,
  resolve: (app: string) => `/api/apps/${app}/repohost/sync/resolve-conflicts`,
  push: (app: string) => `/api/apps/${app}/repohost/sync/manual`,
  pull: (app: string) => `/api/apps/${app}/repohost/sync`,
  chat: (app: string) => `/api/apps/${app}/chat/message`,
  conversation: (app: string) => `/api/apps/${app}/chat/full-conversation`,
  analytics: (workspace: string) => `/api/v1/monitoring/analytics/${workspace}`,
  health: () => '/api/v1/monitoring/health',
};

/** One HTTP call to the sandbox over 127.0.0.1. */
export async function call(sandbox: Sandbox, method: string, path: string, options: CallOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.apiKey) headers.api_key = options.apiKey;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(sandbox.url + path, {
    method,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers };
}

/** A sandbox for one test file, back to its initial world before each test. */
export function useSandbox(options: SandboxOptions = {}): { readonly sandbox: Sandbox } {
  const holder = {} as { sandbox: Sandbox };
  beforeAll(async () => {
    holder.sandbox = await startSandbox({ control: true, ...options });
  });
  beforeEach(() => holder.sandbox.reset());
  afterAll(async () => {
    await holder.sandbox.close();
  });
  return holder;
}

export const OWNER = 'pat_demo_owner';

export const smartBody = (extra: Record<string, unknown> = {}) => ({
  campaign_name: 'Spring planner',
  campaign_type: 'SMART',
  daily_budget_micros: 5_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
  keyword_themes: ['weekly planner'],
  geo_targets: ['2840'],
  headlines: ['Plan your week', 'Simple planning', 'Try it today'],
  descriptions: ['Plan everything in one place.', 'Start in a minute.'],
  ...extra,
});

export const pmaxBody = (extra: Record<string, unknown> = {}) => ({
  ...smartBody(),
  campaign_type: 'PERFORMANCE_MAX',
  logo_url: 'https://files.sandbox.test/logo.png',
  images: [
    { url: 'https://files.sandbox.test/marketing.png', kind: 'MARKETING_IMAGE' },
    { url: 'https://files.sandbox.test/square.png', kind: 'SQUARE_MARKETING_IMAGE' },
  ],
  sitelinks: [{ text: 'Pricing', url: 'https://demo-planner.sandbox.test/pricing' }],
  business_name: 'Demo Planner',
  ...extra,
});
