import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/types.js';
import {
  ListToolsRequestSchema,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { z } from 'zod';
import type { ApiClient } from './api/client.js';
import { secretsOf, type Config } from './config.js';
import { createConfirmations, type Decision } from './confirm.js';
import {
  ApiError,
  AppError,
  CancelledError,
  ConfigError,
  RefusedError,
  UnreachableError,
  describeApiError,
} from './errors.js';
import type { Log } from './log.js';
import type { AnyTool, Clock, ToolContext, ToolResult } from './tools/define.js';
import { confirm as confirmField } from './tools/fields.js';
import { redactor } from './tools/format.js';
import { TOOLS } from './tools/index.js';
import { INSTRUCTIONS } from './instructions.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';


export interface ServerDeps {
  config: Config;
  log: Log;
  /** Defaults to the ky client built from `config` on first use. */
  api?: ApiClient;
  clock?: Clock;
  tools?: AnyTool[];
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new CancelledError());
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(timer), reject(new CancelledError())), { once: true });
    }),
};

/**
 * The tools this configuration enables, in registry order.
 * @throws ConfigError when APPMGMT_TOOLS / --tools names a tool that does not exist.
 */
export function selectTools(config: Config, all: AnyTool[] = TOOLS): AnyTool[] {
  const names = all.map((tool) => tool.name);
  const unknown = (config.tools ?? []).filter((name) => !names.includes(name));
  if (unknown.length > 0) {
    throw new ConfigError(`Unknown tool ${unknown.join(', ')} in APPMGMT_TOOLS/--tools. Valid names: ${names.join(', ')}`);
  }
  return all.filter(
    (tool) => (!config.tools || config.tools.includes(tool.name)) && (!config.readOnly || tool.annotations.readOnlyHint),
  );
}

/** A pure factory: registers every enabled tool in one loop; the one error boundary of the server. */
export function createServer(deps: ServerDeps): McpServer {
  const { config, log } = deps;
  const clock = deps.clock ?? realClock;
  const redact = redactor(secretsOf(config));
  const confirmations = createConfirmations(clock.now);
  // The HTTP client loads on the first tool call: importing ky probes fetch, which costs ~20 ms of start-up.
  let api: Promise<ApiClient> | undefined = deps.api && Promise.resolve(deps.api);
  const getApi = () => (api ??= import('./api/client.js').then(({ createApiClient }) => createApiClient({ config, log })));

  const server = new McpServer(
    { name: SERVER_NAME, version: SERVER_VERSION },
    { capabilities: { tools: {} }, instructions: INSTRUCTIONS, jsonSchemaValidator: lazyValidator() },
  );

  const listing: Array<() => Tool> = [];
  for (const tool of selectTools(config, deps.tools)) {
    const { app_id, ...rest } = tool.input as z.ZodRawShape;
    const inputSchema = z.strictObject({
      ...(config.appId || !app_id ? {} : { app_id }),
      ...rest,
      ...(tool.cost === 'none' ? {} : { confirm: confirmField }),
    });
    const outputSchema = tool.output ? z.object(tool.output) : undefined;
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema, outputSchema, annotations: tool.annotations },
      async (args: Record<string, unknown>, extra: Extra) => {
        try {
          const result = await call(tool, config.appId ? { ...args, app_id: config.appId } : args, extra);
          return finish(result);
        } catch (error) {
          return finish({ text: errorText(error, tool), isError: true });
        }
      },
    );
    listing.push(() => ({
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema: jsonSchema(inputSchema, 'input') as Tool['inputSchema'],
      ...(outputSchema ? { outputSchema: jsonSchema(outputSchema, 'output') as Tool['outputSchema'] } : {}),
      annotations: tool.annotations,
    }));
  }
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
      progress: async (message, progress, total) => {
        if (token === undefined) return;
        step += 1;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: { progressToken: token, progress: progress ?? step, ...(total ? { total } : {}), message },
          })
          .catch((error: unknown) => log.debug(`progress notification failed: ${String(error)}`));
      },
    };
  }

  async function call(tool: AnyTool, args: Record<string, unknown>, extra: Extra): Promise<ToolResult> {
    if (config.readOnly && !tool.annotations.readOnlyHint) {
      throw new RefusedError(`${tool.name} is disabled: the server runs in read-only mode (APPMGMT_READ_ONLY). Nothing was sent.`);
    }
    if (tool.cost === 'none') return tool.run(args, await context(extra));

    const { confirm, ...request } = args;
    const warning = tool.gate.warning(request, config); // local checks throw before anything is sent
    const decision = confirmations.check(tool.name, request, confirm as boolean | undefined);
    if (!decision.proceed) return { text: warningText(tool, warning, decision) };

    await askHuman(tool, request, extra);
    try {
      const result = await tool.run(request, await context(extra));
      confirmations.settle(tool.name, request);
      return result;
    } catch (error) {
      const unknown = unknownOutcome(error);
      if (!unknown) throw error;
      confirmations.recordUnknown(tool.name, request, unknown);
      return {
        isError: true,
        text: `OUTCOME UNKNOWN: ${unknown}. ${tool.gate.unknownOutcome} Do not simply call again: a new attempt needs a fresh warning and confirmation.`,
      };
    }
  }

  /** When the client can show a form, the user approves the exact cost; decline or cancel sends nothing. */
  async function askHuman(tool: AnyTool & { gate: NonNullable<AnyTool['gate']> }, request: Record<string, unknown>, extra: Extra) {
    const canAsk = Boolean(server.server.getClientCapabilities()?.elicitation?.form);
    if (!canAsk) {
      if (config.requireHumanConfirmation) {
        throw new RefusedError(
          `${tool.name} needs a person's approval (APPMGMT_REQUIRE_HUMAN_CONFIRMATION=true), but this client cannot show approval forms. Nothing was sent.`,
        );
      }
      return;
    }
    const answer = await server.server.elicitInput(
      {
        mode: 'form',
        message: tool.gate.approval(request),
        requestedSchema: {
          type: 'object',
          properties: { approve: { type: 'boolean', title: 'Approve', description: 'Check to go ahead.' } },
          required: ['approve'],
        },
      },
      { signal: extra.signal },
    );
    if (answer.action !== 'accept' || answer.content?.approve !== true) {
      throw new RefusedError(`The user did not approve (${answer.action === 'accept' ? 'left unchecked' : answer.action}). Nothing was sent.`);
    }
  }

  function finish(result: ToolResult): CallToolResult {
    const text = redact(config.sandbox ? `[sandbox] ${result.text}` : result.text);
    return {
      content: [{ type: 'text', text }],
      ...(result.isError ? { isError: true } : {}),
      ...(result.structured && !result.isError ? { structuredContent: JSON.parse(redact(JSON.stringify(result.structured))) } : {}),
    };
  }

  function errorText(error: unknown, tool: AnyTool): string {
    if (error instanceof ApiError) return describeApiError(error, tool.statusHints);
    if (error instanceof UnreachableError) return unreachableText(error);
    if (error instanceof AppError) return error.message;
    log.error(`${tool.name} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return `Internal error in ${tool.name}; details are in the server log (stderr). A retry will probably fail the same way.`;
  }

  function unreachableText(error: UnreachableError): string {
    return error.kind === 'timeout'
      ? `No answer within ${Math.round((error.timeoutMs ?? config.timeoutMs) / 1000)} s. The service may be slow or down; a retry later may help (the timeout is set by APPMGMT_TIMEOUT_MS).`
      : 'Could not reach the service (connection refused or dropped). Check APPMGMT_BASE_URL and the network; a retry later may help.';
  }

  /** For a confirmed costly call: did it end without telling us whether it acted? */
  function unknownOutcome(error: unknown): string | undefined {
    if (error instanceof UnreachableError) return error.kind === 'timeout' ? `no answer within ${Math.round((error.timeoutMs ?? 0) / 1000)} s` : 'the connection failed or dropped';
    if (error instanceof ApiError && (error.status >= 500 || error.status === 409)) return `the service answered ${error.status}`;
    if (error instanceof CancelledError) return 'the call was cancelled while the request was on its way';
    return undefined;
  }

  return server;
}

function warningText(tool: AnyTool, warning: string, decision: Extract<Decision, { proceed: false }>): string {
  const lead = {
    first: 'CONFIRMATION NEEDED. Nothing was sent.',
    no_warning: 'CONFIRMATION NEEDED: confirm: true came without a matching warning. Nothing was sent.',
    changed: 'CONFIRMATION NEEDED: the arguments differ from the last warning. Nothing was sent.',
    expired: 'CONFIRMATION NEEDED: the earlier warning is over 10 minutes old. Nothing was sent.',
  }[decision.why];
  const earlier = decision.earlier
    ? `\nEarlier attempt: a confirmed call with these arguments at ${new Date(decision.earlier.at).toISOString()} ended with an unknown outcome (${decision.earlier.what}). Check whether it took effect before confirming again.`
    : '';
  return `${lead}${earlier}\n${warning}\nTo proceed, show this to the user and, if they agree, call ${tool.name} again with the same arguments plus confirm: true within 10 minutes.`;
}

/** The SDK's validator of elicitation answers, built on first use: building it costs ~4 ms of start-up. */
function lazyValidator(): jsonSchemaValidator {
  let ajv: AjvJsonSchemaValidator | undefined;
  return { getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema) };
}

/** JSON Schema of a zod schema as clients read it (draft-7, like the SDK), without "$schema". */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const { $schema: _, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io });
  return rest;
}
