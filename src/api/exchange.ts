import type { z } from 'zod';
import { AnswerTooLargeError, ApiError, AppError, CancelledError, UnexpectedAnswerError, UnreachableError } from '../errors.js';
import type { Log } from '../log.js';
import { limit, mapStrings, sanitize, type Redact } from '../text.js';
import { MAX_HTML_CHARS, MAX_NAME_CHARS, MAX_TEXT_CHARS } from './schemas.js';
import type { SendAbort } from './deadline.js';
import { queryString } from './paths.js';
import { readText } from './read-body.js';
import type { Answer, Send } from './transport.js';
import { requestedWaitMs, waitSeconds } from './retry-after.js';

/** One attempt of a request: one send, then the status, the body within its limit, and the shape. */

/**
 * Which credential an operation takes. `socialKey`: the personal API key in `api_key` when one is
 * set, else the access token as Bearer (service-facts.md, "Credentials": account API keys were
 * replaced by personal access tokens). `none`: the monitoring health check.
 */
export type Credential = 'accessToken' | 'apiKey' | 'socialKey' | 'monitoringApiKey' | 'none';

/** Everything the client needs to know about one operation; a new operation is one of these. */
export interface ApiRequest<T> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** From paths.ts, segments already encoded. */
  path: string;
  query?: URLSearchParams | Record<string, string | number | boolean | undefined>;
  credential: Credential;
  /** Extra headers (e.g. X-Request-ID); they never replace the credential's header. */
  headers?: Record<string, string>;
  json?: unknown;
  schema: z.ZodType<T>;
  /** Only operations that are safe to repeat are retried; spending ones never are. */
  retry: boolean;
  /** Deadline for the whole answer; config.timeoutMs by default. */
  timeoutMs?: number;
  /** The one 2xx status this operation answers; 200 by default. */
  expectStatus?: number;
  /** Sent to the monitoring API's base URL. */
  monitoring?: boolean;
}

/** One attempt's result: the answer, or the error with the wait the upstream asked for (ms, Infinity). */
export type Attempt<T> = { value: T } | { error: Error; waitMs?: number };

export interface ExchangeContext {
  send: Send;
  log: Log;
  redact: Redact;
  maxAnswerBytes: number;
  now: () => number;
}

/** Error bodies are read only this far: the status already says what happened. */
const MAX_ERROR_BODY_BYTES = 1024 * 1024;

/** Sends once and reads the whole answer; never throws, so the retry loop decides on each failure. */
export async function exchange<T>(
  request: ApiRequest<T>,
  target: { url: string; headers: Record<string, string>; timeoutMs: number },
  abort: SendAbort,
  context: ExchangeContext,
  seen?: (status: number) => void,
): Promise<Attempt<T>> {
  let answer: Answer;
  try {
    answer = await context.send({
      method: request.method,
      url: withQuery(target.url, queryString(request.query)),
      headers: request.json === undefined ? target.headers : { ...target.headers, 'content-type': 'application/json' },
      ...(request.json === undefined ? {} : { body: JSON.stringify(request.json) }),
      signal: abort.signal, // the whole-answer deadline, cancellation and shutdown
    });
  } catch (error) {
    return { error: failure(error, abort, target.timeoutMs, request, context.log) };
  }
  seen?.(answer.status);
  // A redirect is never followed (credentials stay with the origin): like any other non-2xx answer, an error.
  if (answer.status < 200 || answer.status > 299) return failed(answer, context);
  const expected = request.expectStatus ?? 200;
  if (answer.status !== expected) {
    answer.discard();
    return unexpected(`status ${answer.status} where ${expected} was expected`, request, context.log);
  }
  let text: string;
  try {
    text = await readText(answer, context.maxAnswerBytes);
  } catch (error) {
    return { error: failure(error, abort, target.timeoutMs, request, context.log) };
  }
  return decode(text, mediaType(answer), request, context);
}

const withQuery = (url: string, query: string) => (query ? `${url}?${query}` : url);

/** A non-2xx answer (3xx included) as an ApiError with the upstream's body, redacted. */
async function failed(answer: Answer, context: ExchangeContext): Promise<Attempt<never>> {
  const text = await readText(answer, MAX_ERROR_BODY_BYTES).catch(() => '');
  const waitMs = requestedWaitMs({ get: answer.header }, context.now());
  const body = mapStrings(lenient(text), (string) => context.redact(limit(string, MAX_TEXT_CHARS)), (key) => context.redact(limit(key, MAX_NAME_CHARS)));
  return { error: new ApiError(answer.status, body, waitSeconds(waitMs)), waitMs };
}

function decode<T>(text: string, type: string, request: ApiRequest<T>, context: ExchangeContext): Attempt<T> {
  if (!text.trim()) return unexpected('an empty body', request, context.log);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    context.log.debug(`${label(request)} answered: ${sanitize(context.redact(text.slice(0, 4096)), 100)}`);
    return unexpected(`a ${type} body, not JSON`, request, context.log);
  }
  // The shape first, on the answer as sent, so a too-long id is named with its true length; the
  // schema cuts each known string to its kind's limit, and every other string is cut here.
  const parsed = request.schema.safeParse(body);
  if (parsed.success) {
    // One search of the whole answer usually shows that no string in it holds a secret in any form;
    // only then are strings cut without being redacted one by one.
    const redact = context.redact.mayHold?.(text) === false ? (string: string) => string : context.redact;
    const value = mapStrings(parsed.data, (string) => redact(limit(string, MAX_HTML_CHARS)), (key) => redact(limit(key, MAX_NAME_CHARS)));
    return { value };
  }
  const issues = parsed.error.issues
    .slice(0, 3)
    .map((issue) => `${sanitize(issue.path.slice(0, 10).map((part) => limit(String(part), 100)).join('.'), 40) || 'answer'}: ${sanitize(limit(issue.message, 200), 120)}`);
  return unexpected(issues.join('; '), request, context.log);
}

function unexpected(detail: string, request: ApiRequest<unknown>, log: Log): Attempt<never> {
  log.warn(`unexpected answer from ${label(request)}: ${detail}`);
  return { error: new UnexpectedAnswerError(detail) };
}

/** A failed fetch or body read, by what ended it. */
function failure(error: unknown, abort: SendAbort, timeoutMs: number, request: ApiRequest<unknown>, log: Log): Error {
  if (error instanceof AnswerTooLargeError) log.warn(`answer of ${label(request)} over ${error.limitBytes} bytes; reading stopped`);
  if (error instanceof AppError) return error;
  const cause = abort.cause();
  if (cause === 'deadline') return new UnreachableError('timeout', timeoutMs);
  if (cause) return new CancelledError();
  log.debug(`network error on ${label(request)}: ${sanitize(error instanceof Error ? error.message : String(error), 100)}`);
  return new UnreachableError('network');
}

/** JSON when it parses, else the text; undefined when empty. */
function lenient(text: string): unknown {
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The answer's media type, when it looks like one: upstream text never reaches a message otherwise. */
function mediaType(answer: Answer): string {
  return /^[\w.+-]{1,40}\/[\w.+-]{1,40}/.exec(answer.header('content-type') ?? '')?.[0].toLowerCase() ?? 'untyped';
}

export function label(request: ApiRequest<unknown>): string {
  return `${request.method.toUpperCase()} ${request.path}`;
}
