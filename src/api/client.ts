import type { Config } from '../config.js';
import { ApiError, CancelledError, ConfigError, UnreachableError } from '../errors.js';
import type { Log } from '../log.js';
import type { Redact } from '../text.js';
import { realClock } from '../clock.js';
import { linkAbort, type SendAbort } from './deadline.js';
import { exchange, label, type ApiRequest, type Credential } from './exchange.js';
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

export type { ApiRequest, Credential } from './exchange.js';

/** Retries after the first attempt, for operations marked `retry`. */
const MAX_RETRIES = 2;
/** Rate limited, or a gateway or the service briefly down: worth another try. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);
/** Longest wait before a retry; beyond it the error goes back at once with when to retry. */
const MAX_RETRY_AFTER_SECONDS = 20;
/** Our answers are small JSON documents; 5 MiB decoded is a broken or hostile upstream. */
export const MAX_ANSWER_BYTES = 5 * 1024 * 1024;
const backoffMs = (attempt: number) => 500 * 2 ** (attempt - 1);

const CREDENTIAL_VARIABLE: Record<Credential, string> = {
  accessToken: 'APPMGMT_ACCESS_TOKEN',
  apiKey: 'APPMGMT_API_KEY',
  monitoringApiKey: 'APPMGMT_MONITORING_API_KEY (or APPMGMT_API_KEY)',
};

export interface CallOptions {
  /** Aborts the HTTP request, e.g. when the MCP request is cancelled. */
  signal?: AbortSignal;
}

export interface ApiClientOptions {
  config: Config;
  log: Log;
  fetch?: typeof fetch;
  /** Backoff before retry n (1-based) when the upstream names no wait; injectable so tests never wait. */
  retryDelayMs?: (attempt: number) => number;
  /** Longest wait before a retry; beyond it the error goes back to the model with the wait. */
  maxRetryAfterSeconds?: number;
  /** Largest decoded answer read; 5 MiB by default. */
  maxAnswerBytes?: number;
  /** Waits before a retry; must reject when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** Epoch ms, for Retry-After dates and reset times. */
  now?: () => number;
  /** Applied to every string of every answer body, success or error, before anyone sees it. */
  redact?: Redact;
  /** Process-wide: ends every send, including retry waits. */
  shutdown?: AbortSignal;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** The one place that knows HTTP: auth per operation, whole-answer deadlines, size limits and retry policy. */
export function createApiClient(options: ApiClientOptions) {
  const { config, log } = options;
  const context = {
    fetch: options.fetch,
    log,
    redact: options.redact ?? ((text: string) => text),
    maxAnswerBytes: options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
    now: options.now ?? Date.now,
  };
  const retryDelayMs = options.retryDelayMs ?? backoffMs;
  const maxWaitMs = (options.maxRetryAfterSeconds ?? MAX_RETRY_AFTER_SECONDS) * 1000;
  const wait = options.sleep ?? realClock.sleep;

  /**
   * Sends a request and returns its validated answer.
   * @throws ConfigError (nothing sent), ApiError, UnreachableError, CancelledError,
   *   UnexpectedAnswerError, AnswerTooLargeError.
   */
  async function send<T>(request: ApiRequest<T>, call: CallOptions): Promise<T> {
    const target = { url: urlOf(request), headers: headersOf(request), timeoutMs: request.timeoutMs ?? config.timeoutMs };
    const abort = linkAbort(target.timeoutMs, { cancel: call.signal, shutdown: options.shutdown });
    try {
      for (let retry = 1; ; retry++) {
        const attempt = await exchange(request, target, abort, context);
        if ('value' in attempt) return attempt.value;
        const ms = request.retry && retry <= MAX_RETRIES ? waitBefore(retry, attempt.error, attempt.waitMs, abort) : undefined;
        if (ms === undefined) throw attempt.error;
        log.debug(`retry ${retry} of ${label(request)} in ${Math.round(ms)} ms after: ${attempt.error.message}`);
        await pause(ms, abort, attempt.error);
      }
    } finally {
      abort.dispose();
    }
  }

  /** The wait before retry n, or undefined when this failure is not retried or the wait is too long. */
  function waitBefore(retry: number, error: Error, waitMs: number | undefined, abort: SendAbort): number | undefined {
    const retryable =
      (error instanceof UnreachableError && error.kind === 'network') || (error instanceof ApiError && RETRY_STATUSES.has(error.status));
    if (!retryable) return undefined;
    const ms = waitMs ?? retryDelayMs(retry);
    return ms > maxWaitMs || ms > abort.remainingMs() ? undefined : ms;
  }

  /** Waits before a retry; when the send ends meanwhile, gives up with the last error (or as cancelled). */
  async function pause(ms: number, abort: SendAbort, lastError: Error): Promise<void> {
    await wait(ms, abort.signal).catch(() => undefined);
    if (abort.signal.aborted) throw abort.cause() === 'cancelled' ? new CancelledError() : lastError;
  }

  function urlOf(request: ApiRequest<unknown>): string {
    const base = request.monitoring ? config.monitoringUrl : config.baseUrl;
    if (!base) {
      throw new ConfigError(
        `Set ${request.monitoring ? 'APPMGMT_MONITORING_URL or ' : ''}APPMGMT_BASE_URL to the API's base URL (or start with --sandbox to try the tools). Nothing was sent.`,
      );
    }
    return base + request.path;
  }

  function headersOf(request: ApiRequest<unknown>): Record<string, string> {
    const secret = config[request.credential];
    if (!secret) throw new ConfigError(`Set ${CREDENTIAL_VARIABLE[request.credential]} to call this tool. Nothing was sent.`);
    const auth: Record<string, string> = request.credential === 'accessToken' ? { authorization: `Bearer ${secret}` } : { api_key: secret };
    // Lower-cased and without credential names, so an extra header never adds or replaces a credential.
    const extra = Object.entries(request.headers ?? {})
      .map(([name, value]) => [name.toLowerCase(), value])
      .filter(([name]) => name !== 'authorization' && name !== 'api_key');
    return { accept: 'application/json', ...Object.fromEntries(extra), ...auth };
  }

  return {
    customizeAppEmail: async (appId: string, emailType: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.customizeAppEmail(appId, emailType), credential: 'accessToken', schema: CustomizedEmailSchema, retry: true }, call),
    createAdCampaign: async (appId: string, body: Record<string, unknown>, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.createAdCampaign(appId), credential: 'accessToken', schema: CampaignSchema, json: body, retry: false }, call),
    listCampaignSuggestions: async (appId: string, campaignId: string, call: CallOptions = {}) =>
      send({ method: 'get', path: paths.listCampaignSuggestions(appId, campaignId), credential: 'accessToken', schema: SuggestionsSchema, retry: true }, call),
    shareAppWithGroups: async (appId: string, body: { group_ids: string[]; role?: string }, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.shareAppWithGroups(appId), credential: 'accessToken', schema: GroupShareResultSchema, json: body, retry: true }, call),
    getSchedulingJob: async (appId: string, jobId: string, call: CallOptions = {}) =>
      send({ method: 'get', path: paths.getSchedulingJob(appId, jobId), credential: 'apiKey', schema: SchedulingJobSchema, retry: true }, call),
    resolveRepoConflicts: async (appId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.resolveRepoConflicts(appId), credential: 'accessToken', schema: ResolveOutcomeSchema, retry: false, timeoutMs: config.resolveTimeoutMs }, call),
    pushAppToRepo: async (appId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.pushAppToRepo(appId), credential: 'accessToken', schema: PushOutcomeSchema, retry: true }, call),
    getWorkspaceAnalytics: async (workspaceId: string, call: CallOptions = {}) =>
      send({ method: 'get', path: paths.getWorkspaceAnalytics(workspaceId), credential: 'monitoringApiKey', schema: AnalyticsSchema, retry: true, monitoring: true }, call),
  };
}
