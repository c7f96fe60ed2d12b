import type { Config } from '../config.js';
import { ApiError, CancelledError, ConfigError, isReadOnlyRefusal, ReadOnlyCredentialError, UnreachableError, type SentCredential } from '../errors.js';
import type { Log } from '../log.js';
import type { Redact } from '../text.js';
import { realClock } from '../clock.js';
import { linkAbort, type SendAbort } from './deadline.js';
import { exchange, label, type ApiRequest, type Attempt, type Credential } from './exchange.js';
import { fetchSend, nodeSend, type Send } from './transport.js';
import type { ObserveUpstream } from '../observe/telemetry.js';
import { paths } from './paths.js';
import { announceSend } from '../observe/sending.js';
import type { z } from 'zod';
import {
  AnalyticsSchema,
  AppliedBudgetSchema,
  CampaignActionSchema,
  CampaignListSchema,
  CampaignSchema,
  ChatTurnSchema,
  ConversationSchema,
  CustomizedEmailSchema,
  DeletedSchema,
  DismissedSchema,
  EmailPreviewSchema,
  EmailTemplateListSchema,
  EmailTemplateSchema,
  GroupShareListSchema,
  GroupShareResultSchema,
  GroupShareSchema,
  HealthSchema,
  PullOutcomeSchema,
  PushOutcomeSchema,
  RemovedSchema,
  ResolveOutcomeSchema,
  SchedulingJobSchema,
  SchedulingStartedSchema,
  SocialPostListSchema,
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
/**
 * How long a credential the service answered as read-only is remembered (issue 29): its permission
 * is set when it is made, and a different credential is a different caller; the hour only bounds a
 * mistake's reach.
 */
export const READ_ONLY_REMEMBERED_MS = 60 * 60_000;

const CREDENTIAL_VARIABLE: Record<Exclude<Credential, 'none'>, string> = {
  accessToken: 'APPMGMT_ACCESS_TOKEN',
  apiKey: 'APPMGMT_API_KEY',
  socialKey: 'APPMGMT_API_KEY or APPMGMT_ACCESS_TOKEN',
  monitoringApiKey: 'APPMGMT_MONITORING_API_KEY (or APPMGMT_API_KEY)',
};

export interface CallOptions {
  /** Aborts the HTTP request, e.g. when the MCP request is cancelled. */
  signal?: AbortSignal;
}

export interface ApiClientOptions {
  config: Config;
  log: Log;
  /** Sends through this fetch instead of node:http (src/api/transport.ts); tests give one to see or fake the upstream. */
  fetch?: typeof fetch;
  /** Sends through this instead of the shared node:http pool; tests wrap nodeSend() to watch what it decodes. */
  send?: Send;
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
  /** Wraps each attempt in an OpenTelemetry span, when telemetry is on. */
  observe?: ObserveUpstream;
}

export type ApiClient = ReturnType<typeof createApiClient>;

/** One keep-alive pool per process, shared by every caller's client (HTTP mode builds one per request). */
let shared: Send | undefined;
const defaultSend = () => (shared ??= nodeSend());

/** The one place that knows HTTP: auth per operation, whole-answer deadlines, size limits and retry policy. */
export function createApiClient(options: ApiClientOptions) {
  const { config, log } = options;
  const context = {
    send: options.send ?? (options.fetch ? fetchSend(options.fetch) : defaultSend()),
    log,
    redact: options.redact ?? ((text: string) => text),
    maxAnswerBytes: options.maxAnswerBytes ?? MAX_ANSWER_BYTES,
    now: options.now ?? Date.now,
  };
  const retryDelayMs = options.retryDelayMs ?? backoffMs;
  const maxWaitMs = (options.maxRetryAfterSeconds ?? MAX_RETRY_AFTER_SECONDS) * 1000;
  const wait = options.sleep ?? realClock.sleep;
  /** When the service answered each of this caller's credentials as read-only: at most two entries. */
  const readOnly = new Map<SentCredential, number>();
  const readOnlySince = (credential: SentCredential): number | undefined => {
    const since = readOnly.get(credential);
    if (since === undefined || context.now() - since < READ_ONLY_REMEMBERED_MS) return since;
    readOnly.delete(credential);
    return undefined;
  };

  /**
   * Sends a request and returns its validated answer.
   * @throws ConfigError (nothing sent), ApiError, UnreachableError, CancelledError,
   *   UnexpectedAnswerError, AnswerTooLargeError.
   */
  async function send<T>(request: ApiRequest<T>, call: CallOptions): Promise<T> {
    const target = { url: urlOf(request), headers: headersOf(request), timeoutMs: request.timeoutMs ?? config.timeoutMs };
    const credential = sentCredential(request, target.headers);
    // A change with a credential the service already answered as read-only would be refused too: not sent.
    const since = credential && request.method !== 'get' ? readOnlySince(credential) : undefined;
    if (credential && since !== undefined) throw new ReadOnlyCredentialError(credential, since);
    const abort = linkAbort(target.timeoutMs, { cancel: call.signal, shutdown: options.shutdown });
    try {
      for (let retry = 1; ; retry++) {
        // A gated call's write is recorded in the audit trail before it leaves; a record that cannot be written stops it here.
        await announceSend({ method: request.method, url: target.url, query: request.query, json: request.json, requestId: target.headers['x-request-id'] });
        const attempt = await attemptOnce(request, target, abort, retry - 1);
        if ('value' in attempt) return attempt.value;
        if (attempt.error instanceof ApiError && credential) {
          attempt.error.credential = credential;
          if (isReadOnlyRefusal(attempt.error)) readOnly.set(credential, context.now());
        }
        const ms = request.retry && retry <= MAX_RETRIES ? waitBefore(retry, attempt.error, attempt.waitMs, abort) : undefined;
        if (ms === undefined) throw attempt.error;
        log.debug(`retry ${retry} of ${label(request)} in ${Math.round(ms)} ms after: ${attempt.error.message}`);
        await pause(ms, abort, attempt.error);
      }
    } finally {
      abort.dispose();
    }
  }

  /** One attempt; inside its upstream span when telemetry is on, which learns the answer's status. */
  function attemptOnce<T>(request: ApiRequest<T>, target: { url: string; headers: Record<string, string>; timeoutMs: number }, abort: SendAbort, resend: number): Promise<Attempt<T>> {
    const { observe } = options;
    if (!observe) return exchange(request, target, abort, context);
    return observe({ method: request.method, path: request.path, url: target.url, resend }, (seen) => exchange(request, target, abort, context, seen));
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
    const auth = authOf(request.credential);
    // Lower-cased and without credential names, so an extra header never adds or replaces a credential.
    const extra = Object.entries(request.headers ?? {})
      .map(([name, value]) => [name.toLowerCase(), value])
      .filter(([name]) => name !== 'authorization' && name !== 'api_key');
    return { accept: 'application/json', ...Object.fromEntries(extra), ...auth };
  }

  /** The personal credential a request's headers carry (the monitoring key aside: it has no read-only form). */
  function sentCredential(request: ApiRequest<unknown>, headers: Record<string, string>): SentCredential | undefined {
    if (request.credential === 'monitoringApiKey' || request.credential === 'none') return undefined;
    return headers.authorization ? 'accessToken' : headers.api_key ? 'apiKey' : undefined;
  }

  /** The header that carries an operation's credential. @throws ConfigError naming the variable to set. */
  function authOf(credential: Credential): Record<string, string> {
    if (credential === 'none') return {};
    if (credential === 'socialKey') {
      if (config.apiKey) return { api_key: config.apiKey };
      if (config.accessToken) return { authorization: `Bearer ${config.accessToken}` };
    } else {
      const secret = config[credential];
      if (secret) return credential === 'accessToken' ? { authorization: `Bearer ${secret}` } : { api_key: secret };
    }
    throw new ConfigError(`Set ${CREDENTIAL_VARIABLE[credential]} to call this tool. Nothing was sent.`);
  }

  const get = <T>(path: string, credential: Credential, schema: z.ZodType<T>, extra: Partial<ApiRequest<T>> = {}) =>
    ({ method: 'get', path, credential, schema, retry: true, ...extra }) as ApiRequest<T>;
  const token = 'accessToken' as const;
  // Money, credits and permanent deletes are never retried (retry: false); reads and writes that are
  // safe to repeat are (the service-facts note for each says why).
  return {
    /** When the service answered `credential` as read-only (403 read_only_credential_route_not_allowed), within the last hour. */
    readOnlySince,
    // Application emails and templates
    customizeAppEmail: async (appId: string, emailType: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.customizeAppEmail(appId, emailType), credential: token, schema: CustomizedEmailSchema, retry: true }, call),
    previewAppEmail: async (appId: string, emailType: string, call: CallOptions = {}) =>
      send(get(paths.previewAppEmail(appId, emailType), token, EmailPreviewSchema), call),
    listEmailTemplates: async (appId: string, limit: number, call: CallOptions = {}) =>
      send(get(paths.listEmailTemplates(appId), token, EmailTemplateListSchema, { query: { limit } }), call),
    getEmailTemplate: async (appId: string, templateId: string, call: CallOptions = {}) =>
      send(get(paths.emailTemplate(appId, templateId), token, EmailTemplateSchema), call),
    deleteEmailTemplate: async (appId: string, templateId: string, call: CallOptions = {}) =>
      send({ method: 'delete', path: paths.emailTemplate(appId, templateId), credential: token, schema: DeletedSchema, retry: false }, call),

    // Ad campaigns
    createAdCampaign: async (appId: string, body: Record<string, unknown>, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.createAdCampaign(appId), credential: token, schema: CampaignSchema, json: body, retry: false }, call),
    listAdCampaigns: async (appId: string, includeMetrics: boolean, call: CallOptions = {}) =>
      send(get(paths.listAdCampaigns(appId), token, CampaignListSchema, { query: { include_metrics: includeMetrics } }), call),
    getAdCampaign: async (appId: string, campaignId: string, call: CallOptions = {}) => send(get(paths.adCampaign(appId, campaignId), token, CampaignSchema), call),
    // Pausing a paused campaign succeeds and changes nothing: safe to repeat.
    pauseAdCampaign: async (appId: string, campaignId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.pauseAdCampaign(appId, campaignId), credential: token, schema: CampaignActionSchema, retry: true }, call),
    resumeAdCampaign: async (appId: string, campaignId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.resumeAdCampaign(appId, campaignId), credential: token, schema: CampaignActionSchema, retry: false }, call),
    deleteAdCampaign: async (appId: string, campaignId: string, call: CallOptions = {}) =>
      send({ method: 'delete', path: paths.adCampaign(appId, campaignId), credential: token, schema: CampaignActionSchema, retry: false }, call),
    applyBudgetRecommendation: async (appId: string, campaignId: string, body: { recommendation_resource_name: string; recommended_daily_budget_micros: number }, call: CallOptions = {}) =>
      send(
        {
          method: 'post',
          path: paths.applyBudgetRecommendation(appId, campaignId),
          credential: token,
          schema: AppliedBudgetSchema,
          json: { ...body, recommendation_type: 'CAMPAIGN_BUDGET' },
          retry: false,
        },
        call,
      ),
    listCampaignSuggestions: async (appId: string, campaignId: string, call: CallOptions = {}) =>
      send(get(paths.listCampaignSuggestions(appId, campaignId), token, SuggestionsSchema), call),
    // Dismissing again succeeds: safe to repeat.
    dismissInsight: async (appId: string, insightId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.dismissInsight(appId), query: { insight_id: insightId }, credential: token, schema: DismissedSchema, retry: true }, call),

    // Group shares: sharing again fails per group with already_shared, a PUT of the same role changes
    // nothing, and a failed removal keeps the share, so all three are safe to repeat.
    shareAppWithGroups: async (appId: string, body: { group_ids: string[]; role?: string }, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.groupShares(appId), credential: token, schema: GroupShareResultSchema, json: body, retry: true }, call),
    listGroupShares: async (appId: string, call: CallOptions = {}) => send(get(paths.groupShares(appId), token, GroupShareListSchema), call),
    updateGroupShare: async (appId: string, shareId: string, role: string | null, call: CallOptions = {}) =>
      send({ method: 'put', path: paths.groupShare(appId, shareId), credential: token, schema: GroupShareSchema, json: { role }, retry: true }, call),
    removeGroupShare: async (appId: string, shareId: string, call: CallOptions = {}) =>
      send({ method: 'delete', path: paths.groupShare(appId, shareId), credential: token, schema: RemovedSchema, retry: true }, call),

    // Social calendar: starting again for the same window returns the job in flight; nothing is published twice.
    listSocialPosts: async (appId: string, call: CallOptions = {}) => send(get(paths.listSocialPosts(appId), 'socialKey', SocialPostListSchema), call),
    startSchedulingPosts: async (appId: string, range: { scheduled_from: string; scheduled_until: string }, call: CallOptions = {}) =>
      send(
        { method: 'post', path: paths.startSchedulingPosts(appId), credential: 'socialKey', schema: SchedulingStartedSchema, json: range, retry: true, expectStatus: 202 },
        call,
      ),
    getSchedulingJob: async (appId: string, jobId: string, call: CallOptions = {}) =>
      send(get(paths.getSchedulingJob(appId, jobId), 'socialKey', SchedulingJobSchema), call),

    // Repository sync: a pull that fails moves nothing, and one that succeeded is up to date the next time.
    pullRepoChanges: async (appId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.pullRepoChanges(appId), credential: token, schema: PullOutcomeSchema, retry: true }, call),
    resolveRepoConflicts: async (appId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.resolveRepoConflicts(appId), credential: token, schema: ResolveOutcomeSchema, retry: false, timeoutMs: config.resolveTimeoutMs }, call),
    pushAppToRepo: async (appId: string, call: CallOptions = {}) =>
      send({ method: 'post', path: paths.pushAppToRepo(appId), credential: token, schema: PushOutcomeSchema, retry: true }, call),

    // Builder chat: a turn takes minutes, like conflict resolution, and shares its deadline.
    sendAppChatMessage: async (appId: string, content: string, requestId: string, call: CallOptions = {}) =>
      send(
        {
          method: 'post',
          path: paths.sendAppChatMessage(appId),
          credential: token,
          schema: ChatTurnSchema,
          json: { content },
          headers: { 'x-request-id': requestId },
          retry: false,
          timeoutMs: config.resolveTimeoutMs,
        },
        call,
      ),
    readAppConversation: async (appId: string, limit: number, call: CallOptions = {}, skip = 0) =>
      send(get(paths.readAppConversation(appId), token, ConversationSchema, { query: skip ? { limit, skip } : { limit } }), call),

    // Monitoring
    monitoringHealth: async (call: CallOptions = {}) => send(get(paths.monitoringHealth(), 'none', HealthSchema, { monitoring: true }), call),
    getWorkspaceAnalytics: async (workspaceId: string, range: { from?: string; to?: string } = {}, call: CallOptions = {}) =>
      send(get(paths.getWorkspaceAnalytics(workspaceId), 'monitoringApiKey', AnalyticsSchema, { monitoring: true, query: range }), call),
  };
}
