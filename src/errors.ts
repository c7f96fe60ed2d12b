import { duration, quote, sanitize } from './text.js';

/** Base of every error whose message is written for the model: trusted, actionable text. */
export class AppError extends Error {
  override name = 'AppError';
}

/** The state store did not answer: nothing was decided, so the gate must refuse. */
export class StateStoreUnavailableError extends AppError {
  override name = 'StateStoreUnavailableError';
  constructor(
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(
      `The confirmation gate's state store is unavailable (${reason}). Calls that need confirmation are refused until it answers again; read tools still work. A retry in a moment may help.`,
      options,
    );
  }
}

/** Bad input: names the field and the rule. Nothing was sent. */
export class InputError extends AppError {
  override name = 'InputError';
  constructor(
    readonly field: string,
    readonly rule: string,
  ) {
    super(`Invalid input: ${field}: ${rule}. Nothing was sent.`);
  }
}

/** Missing or malformed configuration; names the variable to set. */
export class ConfigError extends AppError {
  override name = 'ConfigError';
}

/** The server refuses to act (read-only mode, human confirmation required, budget cap). */
export class RefusedError extends AppError {
  override name = 'RefusedError';
  /** What the audit trail records instead of the message, when the message quotes what the arguments hold (the trail keeps none of it). */
  readonly audit?: string;
  constructor(message: string, options?: ErrorOptions & { audit?: string }) {
    super(message, options);
    if (options?.audit !== undefined) this.audit = options.audit;
  }
}

/** A credential the service may answer as read-only: the one a request carried in its own header. */
export type SentCredential = 'accessToken' | 'apiKey';

/** Who a credential is, in the configuration's words (an HTTP caller's wording rewrites them into headers). */
const CREDENTIAL_NAME: Record<SentCredential, string> = {
  accessToken: 'the access token (APPMGMT_ACCESS_TOKEN)',
  apiKey: 'the API key (APPMGMT_API_KEY)',
};

/** The API answered with a non-2xx status. */
export class ApiError extends Error {
  override name = 'ApiError';
  /** The credential the request carried, when it carried a personal one (set by the API client). */
  credential?: SentCredential;
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super(`API answered ${status}`);
  }
}

/** The service's code when a read-only credential asks for an operation it may not (spec 5, rule 4). */
export const READ_ONLY_CODE = 'read_only_credential_route_not_allowed';

/** The service answered that this request's credential is read-only. */
export function isReadOnlyRefusal(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 403 && JSON.stringify(error.body ?? '').includes(READ_ONLY_CODE);
}

/**
 * A write not sent, because the service already answered this caller's credential as read-only
 * (issue 29): it would refuse this too, so nothing is asked of the person and nothing is sent. A
 * refusal, so a gate that meets it on a confirmed call knows nothing went out.
 */
export class ReadOnlyCredentialError extends RefusedError {
  override name = 'ReadOnlyCredentialError';
  constructor(
    readonly credential: SentCredential,
    readonly since: number,
  ) {
    super(
      `NOT SENT: ${CREDENTIAL_NAME[credential]} is read-only. The service answered a request with it at ${new Date(since).toISOString()} with 403 ${READ_ONLY_CODE}, and it refuses every change made with a read-only credential, so nothing was sent and nothing needs confirming. Most reads still work (the service refuses read-only credentials on email templates and group shares). To make this change, the user needs a full-access credential, or makes it in the service.`,
    );
  }
}

/** No whole answer: the deadline passed (before the headers or while reading the body), or the connection failed or dropped. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
  constructor(
    readonly kind: 'timeout' | 'network',
    readonly timeoutMs?: number,
  ) {
    super(kind === 'timeout' ? `no answer within ${timeoutMs} ms` : 'connection failed');
  }
}

/** A 2xx that is not the answer the operation promises: another status (202 for 200), not JSON, or the wrong shape. */
export class UnexpectedAnswerError extends AppError {
  override name = 'UnexpectedAnswerError';
  constructor(readonly detail: string) {
    super(`The service answered in an unexpected shape (${detail}). The API may have changed; retrying will not help.`);
  }
}

/** The answer was larger than the client reads; reading stopped at the limit. */
export class AnswerTooLargeError extends AppError {
  override name = 'AnswerTooLargeError';
  constructor(readonly limitBytes: number) {
    super(`The service's answer is larger than ${Math.round(limitBytes / 1024 / 1024)} MiB; reading stopped there. Retrying will not help; narrow the request if the tool allows it.`);
  }
}

/** The request was cancelled by the client. */
export class CancelledError extends AppError {
  override name = 'CancelledError';
  constructor() {
    super('Cancelled by the client. If the request had already reached the service, it may still complete there.');
  }
}

/** What a status means for one tool; tools declare these next to their definition. */
export type StatusHints = Partial<Record<number | 'read_only', string>>;

const GENERIC_HINTS: Record<number, string> = {
  400: 'The service rejected the request.',
  401: 'The credential is missing, invalid or expired.',
  402: 'Payment required: the workspace plan or billing does not allow this.',
  403: 'The credential is not allowed to do this.',
  404: 'Not found: check the IDs.',
  409: 'Conflict: the service is busy with a related change.',
  422: 'The service rejected the request as invalid.',
  429: 'Rate limit exceeded.',
};

/** Validation entries shown; a 422 can list thousands. */
const MAX_VALIDATION_LINES = 10;

/** The ad platform's or the service's own explanation in an error body, if any. */
export function reasonOf(body: unknown): string | undefined {
  if (typeof body === 'string') return body.trim() || undefined;
  if (!body || typeof body !== 'object') return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['detail', 'reason', 'message', 'error', 'error_message']) {
    const value = record[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return undefined;
}

/** The 2.9 validation body as `loc: msg` lines (the first few, then a count), or undefined for another shape. */
export function validationLines(body: unknown): string[] | undefined {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  const lines = detail.slice(0, MAX_VALIDATION_LINES).map((entry: { loc?: unknown; msg?: unknown } | null) => {
    const loc = Array.isArray(entry?.loc) ? entry.loc.slice(0, 10).map(String).join('.') : '?';
    return `${sanitize(loc, 120)}: ${sanitize(String(entry?.msg ?? 'invalid'), 200)}`;
  });
  const more = detail.length - lines.length;
  return more > 0 ? [...lines, `…and ${more} more`] : lines;
}

/**
 * Does a 404 look like the API's own "not found" (a JSON error with its own words), rather than a
 * web server's or a router's default page, which means the request went to the wrong place?
 */
function isApiNotFound(body: unknown): boolean {
  if (validationLines(body)) return true;
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const reason = reasonOf(body);
  return reason !== undefined && !/^(not found|404( not found)?|cannot (get|post|put|delete|patch) .*|the requested url was not found.*)\.?$/i.test(reason.trim());
}

/** A tool's 404 hint that names the app among what may be missing. */
const APP_NOT_FOUND = /^App\b[^.:]{0,60}not found/;
const WHERE_APP_IDS_COME_FROM =
  "The service has no operation that lists apps: ask the user for the app's id (with --sandbox, check_connection lists the simulated apps).";

/** Text for an API error, for one tool: status, meaning, the upstream reason, and whether retrying helps. */
export function describeApiError(error: ApiError, hints: StatusHints = {}): string {
  const { status, body } = error;
  if (isReadOnlyRefusal(error)) {
    const which = error.credential ? CREDENTIAL_NAME[error.credential] : 'the credential';
    return [
      `403 ${READ_ONLY_CODE}: ${which} is read-only and this operation needs a full-access one. This server now says so before any change made with it, without sending it.`,
      hints.read_only ?? 'Set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Retrying will not help.',
    ].join('\n');
  }
  if (status === 404 && !isApiNotFound(body)) {
    return '404 from something that is not the API (an HTML page, an empty answer or a router\'s default "Not Found"): the base URL is probably wrong. Set APPMGMT_BASE_URL to the service\'s origin, such as https://your-service.example, without a path like /api (for analytics, APPMGMT_MONITORING_URL). Retrying will not help.';
  }
  const hint = hints[status] ?? GENERIC_HINTS[status] ?? (status >= 500 ? 'The service failed.' : 'The request failed.');
  const lines = [`${status}: ${hint}`];
  if (status === 404 && APP_NOT_FOUND.test(hint) && !hint.includes('lists apps')) lines.push(WHERE_APP_IDS_COME_FROM);
  const validation = validationLines(body);
  if (validation) lines.push('Validation errors:', ...validation.map((line) => `- ${line}`));
  else {
    const reason = reasonOf(body);
    if (reason) lines.push(`Reason given: ${quote(reason, 300)}`);
  }
  lines.push(retryAdvice(error));
  return lines.join('\n');
}

function retryAdvice({ status, retryAfterSeconds }: ApiError): string {
  if (status === 429) {
    return retryAfterSeconds !== undefined
      ? `Retry after ${retryAfterSeconds} s.`
      : 'Retry after a short wait (about a minute).';
  }
  if (status >= 500) return 'A retry later may help.';
  if (status === 409) return 'The service was busy with a related change: read the current state before retrying.';
  return 'Retrying the same request will not help until the cause is fixed.';
}

/**
 * The model's text for any error a tool call ends with, or undefined for an unexpected error (a bug),
 * whose details belong in the log only.
 */
export function describeError(error: unknown, hints: StatusHints | undefined, timeoutMs: number): string | undefined {
  if (error instanceof ApiError) return describeApiError(error, hints);
  if (error instanceof UnreachableError) {
    return error.kind === 'timeout'
      ? `No whole answer within ${duration(error.timeoutMs ?? timeoutMs)}. The service may be slow or down; a retry later may help (the limit is APPMGMT_TIMEOUT_MS; conflict resolution and builder chat turns have APPMGMT_RESOLVE_TIMEOUT_MS).`
      : 'Could not reach the service (connection refused or dropped). Check APPMGMT_BASE_URL and the network; a retry later may help.';
  }
  if (error instanceof AppError) return error.message;
  return undefined;
}
