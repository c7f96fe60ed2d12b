import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { ApiClient } from './api/client.js';
import { realClock, withShutdown } from './clock.js';
import { secretsOf, type Config } from './config.js';
import { describeError, RefusedError } from './errors.js';
import { APPROVAL_FORM, type FormChannel } from './gate/approval.js';
import { createGate } from './gate/gate.js';
import { checkedCanonical } from './gate/key.js';
import { createMemoryStore, type GateStore } from './gate/store.js';
import { INSTRUCTIONS } from './instructions.js';
import { PROMPTS } from './prompts/index.js';
import type { Log } from './log.js';
import { present, presentError } from './result.js';
import { redactor, sanitize } from './text.js';
import { inputSchemaOf, jsonSchemaOf, outputSchemaOf } from './tools/contract.js';
import type { AnyTool, Clock, GatedTool, ToolContext, ToolResult } from './tools/define.js';
import { selectTools } from './tools/index.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

export interface ServerDeps {
  config: Config;
  log: Log;
  /** Defaults to the ky client built from `config` on first use. */
  api?: ApiClient;
  clock?: Clock;
  tools?: AnyTool[];
  /** Defaults to an in-process store. */
  store?: GateStore;
  /** Aborts when the process shuts down: waits and polls end and answer with what they have. */
  shutdown?: AbortSignal;
  /** Counts the tool calls in flight, so a shutdown can wait for them to answer. */
  calls?: Calls;
}

/** The tool calls in flight. */
export interface Calls {
  readonly active: number;
  track<T>(call: Promise<T>): Promise<T>;
  /** Resolves once no call is in flight. */
  idle(): Promise<void>;
}

export function trackCalls(): Calls {
  let active = 0;
  let waiters: Array<() => void> = [];
  return {
    get active() {
      return active;
    },
    async track(call) {
      active += 1;
      try {
        return await call;
      } finally {
        active -= 1;
        if (active === 0) for (const resolve of waiters.splice(0)) resolve();
      }
    },
    idle: () => (active === 0 ? Promise.resolve() : new Promise<void>((resolve) => waiters.push(resolve))),
  };
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** A pure factory: registers every enabled tool in one loop; the one error boundary of the server. */
export function createServer(deps: ServerDeps): McpServer {
  const { config, log } = deps;
  const shutdown = deps.shutdown ?? new AbortController().signal;
  const clock = withShutdown(deps.clock ?? realClock, shutdown);
  const redact = redactor(secretsOf(config));
  // The HTTP client loads on the first tool call: importing ky probes fetch, which costs ~20 ms of start-up.
  let api: Promise<ApiClient> | undefined = deps.api && Promise.resolve(deps.api);
  const getApi = () =>
    (api ??= import('./api/client.js').then(({ createApiClient }) => createApiClient({ config, log, redact, shutdown })));

  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: lazyValidator() },
  );
  const forms: FormChannel = {
    canShowForms: () => Boolean(server.server.getClientCapabilities()?.elicitation?.form),
    showForm: (message, { signal, timeoutMs }) =>
      server.server.elicitInput({ mode: 'form', message: redact(sanitize(message, 500)), requestedSchema: APPROVAL_FORM }, { signal, timeout: timeoutMs }),
  };
  const gate = createGate({ store: deps.store ?? createMemoryStore({ now: () => clock.now() }), now: () => clock.now(), config, forms, log });
  const shown = { redact, sandbox: config.sandbox };
  const calls = deps.calls ?? trackCalls();

  const listing: Array<() => Tool> = [];
  const selected = selectTools(config, deps.tools);
  for (const tool of selected) {
    const inputSchema = inputSchemaOf(tool, config);
    const outputSchema = outputSchemaOf(tool);
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema, outputSchema, annotations: tool.annotations },
      (args: Record<string, unknown>, extra: Extra): Promise<CallToolResult> =>
        calls.track(
          call(tool, config.appId ? { ...args, app_id: config.appId } : args, extra).then(
            (result) => present(result, shown),
            (error: unknown) => presentError(errorText(error, tool), shown),
          ),
        ),
    );
    listing.push(() => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchemaOf(inputSchema, 'input') as Tool['inputSchema'],
      outputSchema: jsonSchemaOf(outputSchema, 'output') as Tool['outputSchema'],
      annotations: tool.annotations,
    }));
  }
  registerPrompts(server, config, new Set(selected.map((tool) => tool.name)));

  // Our own tools/list, built on first request from the very schemas the SDK validates with, minus
  // the "$schema" and "execution" boilerplate it adds to every entry (about 20 tokens a tool).
  let tools: Tool[] | undefined;
  server.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: (tools ??= listing.map((entry) => entry())) }));

  async function context(extra: Extra): Promise<ToolContext> {
    const token = extra._meta?.progressToken;
    let step = 0;
    return {
      api: await getApi(),
      config,
      clock,
      signal: extra.signal,
      shutdown,
      progress: async (message, progress, total) => {
        if (token === undefined) return;
        step += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: progress ?? step, ...(total ? { total } : {}), message: redact(sanitize(message, 300)) },
          })
          .catch((error: unknown) => log.debug(`progress notification failed: ${String(error)}`));
      },
    };
  }

  async function call(tool: AnyTool, args: Record<string, unknown>, extra: Extra): Promise<ToolResult> {
    if (config.readOnly && !tool.annotations.readOnlyHint) {
      throw new RefusedError(`${tool.name} is disabled: the server runs in read-only mode (APPMGMT_READ_ONLY). Nothing was sent.`);
    }
    if (tool.cost === 'none') {
      checkedCanonical(args); // the size limit holds for every tool, not only gated ones
      return tool.run(args, await context(extra));
    }
    const { confirm, ...request } = args;
    return gate.call(tool as GatedTool, request, confirm, await context(extra));
  }

  function errorText(error: unknown, tool: AnyTool): string {
    const known = describeError(error, tool.statusHints, config.timeoutMs);
    if (known !== undefined) return known;
    log.error(`${tool.name} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return `Internal error in ${tool.name}; details are in the server log (stderr). A retry will probably fail the same way.`;
  }

  return server;
}

/** The workflow prompts whose tools are all enabled; app_id leaves their arguments when the server is scoped. */
function registerPrompts(server: McpServer, config: Config, enabled: Set<string>): void {
  for (const prompt of PROMPTS.filter((candidate) => candidate.tools.every((name) => enabled.has(name)))) {
    const { app_id: _, ...unscoped } = prompt.args as z.ZodRawShape;
    server.registerPrompt(
      prompt.name,
      { title: prompt.title, description: prompt.description, argsSchema: config.appId ? unscoped : prompt.args },
      (args: Record<string, string | undefined>) => {
        const clean = Object.fromEntries(Object.entries(args).map(([name, value]) => [name, value === undefined ? value : sanitize(value, 200)]));
        const app = `app ${config.appId ?? clean.app_id}`;
        return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.message(clean, app) } }] };
      },
    );
  }
}

/** The SDK's validator of elicitation answers, built on first use: building it costs ~4 ms of start-up. */
function lazyValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}
