import { context, SpanKind, SpanStatusCode, type Attributes, type Tracer } from '@opentelemetry/api';
import { paths } from '../api/paths.js';
import type { ObserveUpstream, UpstreamCall } from './telemetry.js';

/**
 * A CLIENT span per upstream HTTP attempt, as the HTTP client conventions describe it
 * (https://opentelemetry.io/docs/specs/semconv/http/http-spans/): named `{METHOD} {url.template}`,
 * with the method, the status the service answered, the host and port, and
 * http.request.resend_count on a retry. The URL itself is never recorded: its query and path hold
 * ids and arguments, and a base URL could hold userinfo; the template and host say where it went.
 */

/** A path segment standing for a value in a template. */
const PLACEHOLDER = '{id}';

interface Template {
  text: string;
  pattern: RegExp;
  /** Literal segments: of two templates that match, the one with more is meant. */
  literals: number;
}

/**
 * Every operation's path template, from the very functions the client builds paths with: each
 * argument given as the placeholder, which comes back percent-encoded and is decoded again.
 */
export function pathTemplates(): Template[] {
  const encoded = encodeURIComponent(PLACEHOLDER);
  const texts = new Set(
    Object.values(paths).map((build) => (build as (...args: string[]) => string)(...Array.from({ length: build.length }, () => PLACEHOLDER)).replaceAll(encoded, PLACEHOLDER)),
  );
  return [...texts]
    .map((text) => {
      const segments = text.split('/');
      const pattern = new RegExp(`^${segments.map((part) => (part === PLACEHOLDER ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))).join('/')}$`);
      return { text, pattern, literals: segments.filter((part) => part !== PLACEHOLDER).length };
    })
    .sort((a, b) => b.literals - a.literals);
}

/** The template a path was built from, or undefined for a path no operation builds. */
export function templateOf(templates: Template[], path: string): string | undefined {
  return templates.find((template) => template.pattern.test(path))?.text;
}

/** error.type of each error the client's attempts end with, when the service sent no status worth naming. */
const ERROR_TYPES: Record<string, string> = {
  CancelledError: 'cancelled',
  AnswerTooLargeError: 'answer_too_large',
  UnexpectedAnswerError: 'unexpected_answer',
};

/**
 * error.type of a failed attempt: the status when the service answered 4xx or 5xx, else how it
 * failed. By name, not instanceof: this file is built into dist/otel.cjs, apart from the classes
 * the server bundle throws.
 */
function errorTypeOf(error: Error, status: number | undefined): string {
  if (status !== undefined && status >= 400) return String(status);
  if (error.name === 'UnreachableError') return (error as Error & { kind?: string }).kind ?? 'network'; // timeout | network
  return ERROR_TYPES[error.name] ?? '_OTHER';
}

export function observeUpstream(tracer: Tracer): ObserveUpstream {
  const templates = pathTemplates();
  return async (call, run) => {
    const method = call.method.toUpperCase();
    const template = templateOf(templates, call.path);
    const span = tracer.startSpan(template ? `${method} ${template}` : method, { kind: SpanKind.CLIENT, attributes: attributesOf(call, method, template) }, context.active());
    let status: number | undefined;
    try {
      const attempt = await run((seen) => (status = seen));
      if (status !== undefined) span.setAttribute('http.response.status_code', status);
      if ('error' in attempt) {
        span.setAttribute('error.type', errorTypeOf(attempt.error, status));
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      return attempt;
    } finally {
      span.end();
    }
  };
}

function attributesOf(call: UpstreamCall, method: string, template: string | undefined): Attributes {
  const attributes: Attributes = { 'http.request.method': method };
  if (template) attributes['url.template'] = template;
  if (call.resend > 0) attributes['http.request.resend_count'] = call.resend;
  try {
    const url = new URL(call.url);
    attributes['server.address'] = url.hostname;
    attributes['server.port'] = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    attributes['url.scheme'] = url.protocol.replace(/:$/, '');
  } catch {
    // An unparseable base URL fails the request itself; the span keeps the method alone.
  }
  return attributes;
}
