import ky, { HTTPError, TimeoutError, type Options } from 'ky';
import type { z } from 'zod';
import type { Config } from '../config.js';
import { ApiError, AppError, CancelledError, ConfigError, UnreachableError } from '../errors.js';
import type { Log } from '../log.js';
import { paths } from './paths.js';
import {
  AnalyticsSchema,
  CampaignSchema,
  CustomizedEmailSchema,
  GroupShareResultSchema,
  PushOutcomeSchema,
  ResolveOutcomeSchema,
  SchedulingJobSchema,
  SuggestionsSchema,
} from './schemas.js';

type Credential = 'accessToken' | 'apiKey' | 'monitoringApiKey';

const CREDENTIAL_VARIABLE: Record<Credential, string> = {
  accessToken: 'APPMGMT_ACCESS_TOKEN',
  apiKey: 'APPMGMT_API_KEY',
  monitoringApiKey: 'APPMGMT_MONITORING_API_KEY (or APPMGMT_API_KEY)',
};

export interface CallOptions {
  /** Aborts the HTTP request, e.g. when the MCP request is cancelled. */
  signal?: AbortSignal;
}

interface Request<T> extends CallOptions {
  method: 'get' | 'post';
  path: string;
  credential: Credential;
  schema: z.ZodType<T>;
  json?: unknown;
  /** Only operations that are safe to repeat are retried; spending ones never are. */
  retry: boolean;
  timeoutMs?: number;
  monitoring?: boolean;
}

export interface ApiClientOptions {
  config: Config;
  log: Log;
  fetch?: typeof fetch;
  /** Backoff before retry n (1-based); injectable so tests never wait. */
  retryDelayMs?: (attempt: number) => number;
  /** Longest Retry-After we wait for; beyond it the 429 goes back to the model. */
  maxRetryAfterSeconds?: number;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The one place that knows HTTP: auth per operation, timeouts, retry policy and abort signals. */
export function createApiClient(options: ApiClientOptions) {
  const { config, log } = options;
  const maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 20;

  async function send<T>(request: Request<T>): Promise<T> {
    const base = request.monitoring ? config.monitoringUrl : config.baseUrl;
    if (!base) {
      throw new ConfigError(
        `Set ${request.monitoring ? 'APPMGMT_MONITORING_URL or ' : ''}APPMGMT_BASE_URL to the API's base URL (or start with --sandbox to try the tools). Nothing was sent.`,
      );
    }
    const secret = config[request.credential];
    if (!secret) {
      throw new ConfigError(`Set ${CREDENTIAL_VARIABLE[request.credential]} to call this tool. Nothing was sent.`);
    }
    const headers: Record<string, string> =
      request.credential === 'accessToken' ? { authorization: `Bearer ${secret}` } : { api_key: secret };
    const kyOptions: Options = {
      method: request.method,
      headers,
      json: request.json,
      timeout: request.timeoutMs ?? config.timeoutMs,
      signal: request.signal,
      redirect: 'manual', // never forward credentials to another origin
      fetch: options.fetch,
      retry: request.retry ? retryPolicy() : 0,
      hooks: {
        beforeRetry: [({ retryCount, error }) => log.debug(`retry ${retryCount} of ${request.method.toUpperCase()} ${request.path}: ${error.message}`)],
      },
    };
    let body: unknown;
    try {
      const response = await ky(base + request.path, kyOptions);
      body = await readBody(response);
    } catch (error) {
      throw await translate(error, request);
    }
    const parsed = request.schema.safeParse(body);
    if (!parsed.success) {
      const issues = parsed.error.issues.slice(0, 3).map((i) => `${i.path.join('.') || 'answer'}: ${i.message}`).join('; ');
      log.warn(`unexpected answer from ${request.method.toUpperCase()} ${request.path}: ${issues}`);
      throw new AppError(`The service answered in an unexpected shape (${issues}). The API may have changed; retrying will not help.`);
    }
    return parsed.data;
  }

  function retryPolicy(): Options['retry'] {
    return {
      limit: 2,
      methods: ['get', 'post'],
      statusCodes: [429, 502, 503, 504],
      afterStatusCodes: [429, 503],
      backoffLimit: 5_000,
      delay: options.retryDelayMs ?? ((attempt) => 500 * 2 ** (attempt - 1)),
      shouldRetry: ({ error }) => {
        if (error instanceof HTTPError) {
          const after = retryAfterSeconds(error.response.headers.get('retry-after'));
          if (after !== undefined && after > maxRetryAfterSeconds) return false;
        }
        return undefined;
      },
    };
  }

  async function translate(error: unknown, request: Request<unknown>): Promise<Error> {
    if (error instanceof HTTPError) {
      const body = await readBody(error.response).catch(() => undefined);
      return new ApiError(error.response.status, body, retryAfterSeconds(error.response.headers.get('retry-after')));
    }
    if (error instanceof TimeoutError) return new UnreachableError('timeout', request.timeoutMs ?? config.timeoutMs);
    if (request.signal?.aborted) return new CancelledError();
    log.debug(`network error on ${request.path}: ${error instanceof Error ? error.message : String(error)}`);
    return new UnreachableError('network');
  }

  return {
    customizeAppEmail: async (appId: string, emailType: string, call: CallOptions = {}) =>
      send({ ...call, method: 'post', path: paths.customizeAppEmail(appId, emailType), credential: 'accessToken', schema: CustomizedEmailSchema, retry: true }),
    createAdCampaign: async (appId: string, body: Record<string, unknown>, call: CallOptions = {}) =>
      send({ ...call, method: 'post', path: paths.createAdCampaign(appId), credential: 'accessToken', schema: CampaignSchema, json: body, retry: false }),
    listCampaignSuggestions: async (appId: string, campaignId: string, call: CallOptions = {}) =>
      send({ ...call, method: 'get', path: paths.listCampaignSuggestions(appId, campaignId), credential: 'accessToken', schema: SuggestionsSchema, retry: true }),
    shareAppWithGroups: async (appId: string, body: { group_ids: string[]; role?: string }, call: CallOptions = {}) =>
      send({ ...call, method: 'post', path: paths.shareAppWithGroups(appId), credential: 'accessToken', schema: GroupShareResultSchema, json: body, retry: true }),
    getSchedulingJob: async (appId: string, jobId: string, call: CallOptions = {}) =>
      send({ ...call, method: 'get', path: paths.getSchedulingJob(appId, jobId), credential: 'apiKey', schema: SchedulingJobSchema, retry: true }),
    resolveRepoConflicts: async (appId: string, call: CallOptions = {}) =>
      send({ ...call, method: 'post', path: paths.resolveRepoConflicts(appId), credential: 'accessToken', schema: ResolveOutcomeSchema, retry: false, timeoutMs: config.resolveTimeoutMs }),
    pushAppToRepo: async (appId: string, call: CallOptions = {}) =>
      send({ ...call, method: 'post', path: paths.pushAppToRepo(appId), credential: 'accessToken', schema: PushOutcomeSchema, retry: true }),
    getWorkspaceAnalytics: async (workspaceId: string, call: CallOptions = {}) =>
      send({ ...call, method: 'get', path: paths.getWorkspaceAnalytics(workspaceId), credential: 'monitoringApiKey', schema: AnalyticsSchema, retry: true, monitoring: true }),
  };
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Retry-After in seconds (delta or HTTP date), or undefined when absent or unreadable. */
function retryAfterSeconds(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}
