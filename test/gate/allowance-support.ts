import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ElicitRequestSchema, type ClientCapabilities } from '@modelcontextprotocol/sdk/types.js';
import { InMemoryTransport } from '@modelcontextprotocol/server';
import { realClock } from '../../src/clock.js';
import type { Bound } from '../../src/auth/grant.js';
import type { Config } from '../../src/config.js';
import type { AllowanceStore } from '../../src/gate/allowance-store.js';
import { silentLog } from '../../src/log.js';
import type { AuditTrail } from '../../src/observe/audit.js';
import { startSandbox, type Sandbox } from '../../src/sandbox/http.js';
import { createServerFactory, type Credentials } from '../../src/server.js';
import type { CallOutcome } from '../helpers.js';
import { sandboxConfig } from '../helpers.js';

/**
 * One server (one gate, one allowance) for several users of the sandbox, each connected over
 * InMemoryTransport with their own credentials, as HTTP callers are; its clock is the test's.
 */

/** The sandbox's second user in the demo workspace (the demo credentials are the first). */
export const ADMIN: Credentials = { accessToken: 'pat_demo_admin', apiKey: 'key_demo_admin', monitoringApiKey: undefined };

/** 2026-11-25T20:30:00Z: three and a half hours before the UTC day ends. */
export const EVENING = Date.parse('2026-11-25T20:30:00Z');

export interface UserClient {
  call(name: string, args?: Record<string, unknown>): Promise<CallOutcome>;
  /** The approval forms this client was shown (a client that declares form elicitation approves them). */
  asked: string[];
}

export interface LimitedServer {
  sandbox: Sandbox;
  time: { t: number };
  /** A client of `credentials` (the demo user's when absent); with `grant`, as an OAuth grant holding them. */
  user(credentials?: Credentials, options?: { forms?: boolean; grant?: { id: string; bound: Bound } }): Promise<UserClient>;
  /** Confirmed creates of the POSTs the sandbox received. */
  creates(): number;
  close(): Promise<void>;
}

export async function limitedServer(
  limits: Partial<Config>,
  options: { audit?: AuditTrail; allowanceStore?: AllowanceStore; sandbox?: Sandbox; stateSecret?: string } = {},
): Promise<LimitedServer> {
  const sandbox = options.sandbox ?? (await startSandbox({ control: true }));
  const time = { t: EVENING };
  const config = sandboxConfig(sandbox, limits);
  const factory = createServerFactory({
    config,
    log: silentLog,
    clock: { now: () => time.t, sleep: realClock.sleep },
    ...(options.audit ? { audit: options.audit } : {}),
    ...(options.allowanceStore ? { allowanceStore: options.allowanceStore } : {}),
    ...(options.stateSecret ? { stateSecret: options.stateSecret } : {}),
  });
  const closing: Array<() => Promise<void>> = [];
  return {
    sandbox,
    time,
    async user(credentials = sandbox.simulation.credentials, { forms = false, grant } = {}) {
      const server = factory({ credentials: { accessToken: credentials.accessToken, apiKey: credentials.apiKey, monitoringApiKey: credentials.monitoringApiKey }, ...(grant ? { grant } : {}) });
      const capabilities: ClientCapabilities = forms ? { elicitation: { form: {} } } : {};
      const client = new Client({ name: 'allowance-test', version: '1.0.0' }, { capabilities });
      const asked: string[] = [];
      if (forms) {
        client.setRequestHandler(ElicitRequestSchema, async (request) => {
          asked.push(request.params.message);
          return { action: 'accept', content: { approve: true } };
        });
      }
      const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
      await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
      closing.push(async () => {
        await client.close();
        await server.close();
      });
      return {
        asked,
        async call(name, args = {}) {
          const result = await client.callTool({ name, arguments: args });
          const content = result.content as Array<{ text?: string }>;
          return {
            text: content.map((part) => part.text ?? '').join('\n'),
            isError: result.isError === true,
            ...(result.structuredContent ? { structured: result.structuredContent as Record<string, unknown> } : {}),
          };
        },
      };
    },
    creates: () => sandbox.requests.filter((request) => request.method === 'POST' && request.rawPath.endsWith('/campaigns')).length,
    async close() {
      await Promise.all(closing.splice(0).map((close) => close()));
      if (!options.sandbox) await sandbox.close();
    },
  };
}

/** A campaign in the demo app with a daily budget of `units` (currency units). */
export const budgeted = (name: string, units: number) => ({
  app_id: 'app_demo',
  campaign_name: name,
  campaign_type: 'SMART',
  daily_budget_micros: units * 1_000_000,
  landing_page: 'https://demo-planner.sandbox.test/',
});

/** Warns, then confirms: the confirmed call's outcome. */
export async function warnAndConfirm(client: UserClient, tool: string, args: Record<string, unknown>): Promise<{ warning: CallOutcome; outcome: CallOutcome }> {
  const warning = await client.call(tool, args);
  const outcome = warning.isError ? warning : await client.call(tool, { ...args, confirm: true });
  return { warning, outcome };
}

/** The "Daily limit: …" sentence of a warning's cost. */
export function allowanceOf(outcome: CallOutcome): string | undefined {
  return /Daily limit: [^\n]*/.exec(String(outcome.structured?.cost ?? ''))?.[0];
}
