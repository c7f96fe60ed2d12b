import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { createApiClient } from '../../src/api/client.js';
import { secretsOf } from '../../src/config.js';
import { silentLog, type Log } from '../../src/log.js';
import { AuditLineSchema, createAuditTrail, type AuditLine, type AuditSink } from '../../src/observe/audit.js';
import type { RecordedRequest } from '../../src/sandbox/types.js';
import type { Sandbox } from '../../src/sandbox/http.js';
import { createServer } from '../../src/server.js';
import { redactor } from '../../src/text.js';
import { sandboxConfig } from '../helpers.js';

/** Helpers for the audit trail's tests: an in-process server with a trail, and the rebuild of spends from a trail alone. */

export interface Outcome {
  text: string;
  isError: boolean;
}

/** A sink that keeps every line, and fails while `failing` says so for a line's step. */
export function memorySink(events: string[] = []) {
  const lines: string[] = [];
  const sink: AuditSink & { failing: (step: string) => boolean } = {
    failing: () => false,
    async append(line) {
      const step = (JSON.parse(line) as AuditLine).step;
      events.push(`append ${step}`);
      if (sink.failing(step)) throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      await Promise.resolve(); // durable a tick later, as a real fsync is
      lines.push(line);
      events.push(`durable ${step}`);
    },
  };
  return { sink, lines, events, parsed: () => lines.map((line) => AuditLineSchema.parse(JSON.parse(line))) };
}

/** A server over InMemoryTransport on `sandbox`, recording its trail in `sink`; `events` also gets every request fetch sends. */
export async function auditedServer(sandbox: Sandbox, sink: AuditSink, options: { events?: string[]; log?: Log } = {}) {
  const config = sandboxConfig(sandbox);
  const log = options.log ?? silentLog;
  const redact = redactor(secretsOf(config));
  const fetching: typeof fetch = async (input, init) => {
    const request = input instanceof Request ? input : new Request(input, init);
    if (request.method !== 'GET') options.events?.push(`fetch ${request.method}`);
    return fetch(input, init);
  };
  const api = createApiClient({ config, log, retryDelayMs: () => 0, redact, fetch: fetching });
  const audit = createAuditTrail({ sink, now: Date.now, redact, log });
  const server = createServer({ config, log, api, audit });
  const client = new Client({ name: 'audit-test', version: '1.0.0' });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return {
    config,
    async call(name: string, args: Record<string, unknown>): Promise<Outcome> {
      const result = await client.callTool({ name, arguments: args });
      const content = result.content as Array<{ text?: string }>;
      return { text: content.map((part) => part.text ?? '').join('\n'), isError: result.isError === true };
    },
    close: async () => {
      await client.close();
      await server.close();
    },
  };
}

/** A campaign in the demo app; each name is another set of arguments for the gate. */
export const campaign = (name: string, micros = 5_000_000) => ({
  app_id: 'app_demo',
  campaign_name: name,
  campaign_type: 'SMART',
  daily_budget_micros: micros,
  landing_page: 'https://demo-planner.sandbox.test/',
});

/** One spend as rebuilt from the trail alone: what was sent, and what became of it. */
export interface Spend {
  sent_sha256: string;
  http: string;
  user: string;
  tool: string;
  outcome: 'success' | 'refused' | 'unknown';
  /** True when the trail has no answer for it (the process ended first): unknown. */
  unanswered: boolean;
}

/** Every `sent` line with the answer of its call; a sent without an answer is an unknown outcome. */
export function spendsFromTrail(lines: AuditLine[]): Spend[] {
  const answers = new Map(lines.filter((line) => line.step === 'answered').map((line) => [line.call, line]));
  return lines
    .filter((line) => line.step === 'sent')
    .map((line) => {
      const answer = answers.get(line.call);
      const outcome = answer?.outcome === 'success' || answer?.outcome === 'refused' ? answer.outcome : 'unknown';
      return { sent_sha256: line.sent_sha256!, http: line.http!, user: line.user, tool: line.tool, outcome, unanswered: answer === undefined };
    });
}

/**
 * The digest of a request as the sandbox recorded it, computed from docs/operations.md's definition
 * of `sent_sha256` alone, not with the server's code: SHA-256 of `METHOD /path?query`, a line break,
 * and the JSON body with its keys sorted at every depth (nothing after the line break without a body).
 */
export function receivedDigest(request: RecordedRequest): string {
  const line = `${request.method} ${request.rawPath}${request.query ? `?${request.query}` : ''}`;
  return createHash('sha256').update(`${line}\n${request.body === undefined ? '' : sortedJson(request.body)}`).digest('hex');
}

/** JSON with every object's keys in sorted order: JSON.stringify writes an object's keys in the order of a replacer list. */
function sortedJson(value: unknown): string {
  const names = new Set<string>();
  const collect = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [name, child] of Object.entries(node)) {
      if (!Array.isArray(node)) names.add(name);
      collect(child);
    }
  };
  collect(value);
  return JSON.stringify(value, [...names].sort());
}

/** The sandbox's own record of writes it received (every request but reads), as digests, sorted. */
export function receivedWrites(requests: RecordedRequest[]): string[] {
  return requests.filter((request) => request.method !== 'GET').map(receivedDigest).sort();
}

/** Lines of a trail file (or of stderr lines marked audit:), each parsed by the schema. */
export function parseTrail(text: string, prefix = ''): AuditLine[] {
  return text
    .split('\n')
    .filter((line) => line.trim() && line.startsWith(prefix))
    .map((line) => AuditLineSchema.parse(JSON.parse(line.slice(prefix.length))));
}
