import { sanitize } from './tools/format.js';

/** Base of every error whose message is written for the model: trusted, actionable text. */
export class AppError extends Error {
  override name = 'AppError';
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
}

/** The API answered with a non-2xx status. */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly retryAfterSeconds?: number,
  ) {
    super(`API answered ${status}`);
  }
}

/** No answer: timeout, refused or dropped connection. */
export class UnreachableError extends Error {
  override name = 'UnreachableError';
  constructor(
    readonly kind: 'timeout' | 'network',
    readonly timeoutMs?: number,
  ) {
    super(kind === 'timeout' ? `no answer within ${timeoutMs} ms` : 'connection failed');
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

const READ_ONLY_CODE = 'read_only_credential_route_not_allowed';

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

/** The 2.9 validation body as `loc: msg` lines, or undefined when the body has another shape. */
export function validationLines(body: unknown): string[] | undefined {
  const detail = (body as { detail?: unknown } | null)?.detail;
  if (!Array.isArray(detail) || detail.length === 0) return undefined;
  return detail.map((entry: { loc?: unknown; msg?: unknown }) => {
    const loc = Array.isArray(entry?.loc) ? entry.loc.map(String).join('.') : '?';
    return `${sanitize(loc, 120)}: ${sanitize(String(entry?.msg ?? 'invalid'), 200)}`;
  });
}

/** Text for an API error, for one tool: status, meaning, the upstream reason, and whether retrying helps. */
export function describeApiError(error: ApiError, hints: StatusHints = {}): string {
  const { status, body } = error;
  const readOnly = JSON.stringify(body ?? '').includes(READ_ONLY_CODE);
  const lines: string[] = [];
  if (readOnly) {
    lines.push(
      `403 ${READ_ONLY_CODE}: the token is read-only and this operation needs a full-access one.`,
      hints.read_only ?? 'Set APPMGMT_ACCESS_TOKEN to a full_access personal access token. Retrying will not help.',
    );
    return lines.join('\n');
  }
  lines.push(`${status}: ${hints[status] ?? GENERIC_HINTS[status] ?? (status >= 500 ? 'The service failed.' : 'The request failed.')}`);
  const validation = validationLines(body);
  if (validation) lines.push('Validation errors:', ...validation.map((line) => `- ${line}`));
  else {
    const reason = reasonOf(body);
    if (reason) lines.push(`Reason given: "${sanitize(reason, 300)}"`);
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
  return 'Retrying the same request will not help until the cause is fixed.';
}
