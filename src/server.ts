import { setMaxListeners } from 'node:events';
import {
  CLIENT_CAPABILITIES_META_KEY,
  createRequestStateCodec,
  inputRequired,
  inputResponse,
  isInputRequiredResult,
  McpServer,
  ProtocolError,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type CallToolRequestParams,
  type CallToolResult,
  type ClientCapabilities,
  type InputRequiredResult,
  type jsonSchemaValidator,
  type ServerContext,
  type Tool,
} from '@modelcontextprotocol/server';
import { z } from 'zod';
import type { ApiClient } from './api/client.js';
import { registerViews, UI_EXTENSION, withArguments, withViews } from './apps.js';
import { realClock, withShutdown } from './clock.js';
import { MAX_COMPARED_CHARS, secretsOf, type Config } from './config.js';
import { describeError, ReadOnlyCredentialError, RefusedError } from './errors.js';
import { APPROVAL_FORM, formAnswerValidator, type ApprovalChannel, type ApprovalState, type AskApproval } from './gate/approval.js';
import { createAllowance, type Payer } from './gate/allowance.js';
import { createMemoryAllowanceStore, type AllowanceStore } from './gate/allowance-store.js';
import { createGate, GATED_CREDENTIAL } from './gate/gate.js';
import { checkedCanonical, gateScope } from './gate/key.js';
import { createMemoryStore, type GateStore } from './gate/store.js';
import { instructionsFor } from './instructions.js';
import type { AuditTrail } from './observe/audit.js';
import type { Telemetry } from './observe/telemetry.js';
import { redactingLog, type Log } from './log.js';
import { PROMPTS } from './prompts/index.js';
import { nextAfter, present, presentError, type Shown } from './result.js';
import { limit, redactor, reworded, sanitize } from './text.js';
import { checkArguments } from './tools/arguments.js';
import { inputSchemaOf, jsonSchemaOf, outputSchemaOf } from './tools/contract.js';
import type { AnyTool, Clock, GatedTool, Offered, ToolContext, ToolResult } from './tools/define.js';
import type { Bound } from './auth/grant.js';
import { CATALOG, type ToolLike } from './tools/catalog.js';
import { offeredTo, shownSchema, shownTool } from './tools/offer.js';
import { nodeCrypto } from './node-crypto.js';
import { guardServer } from './transports/message-guard.js';
import { SERVER_NAME, SERVER_VERSION } from './version.js';

export interface ServerDeps {
  config: Config;
  log: Log;
  /** The default caller's API client; defaults to the client built from `config` on first use. */
  api?: ApiClient;
  /** API clients are built once it resolves, so tool calls wait for it (--sandbox: the sandbox listening, which initialize does not wait for). */
  ready?: Promise<unknown>;
  clock?: Clock;
  tools?: AnyTool[];
  /** Defaults to an in-process store. */
  store?: GateStore;
  /** Where the daily limits count (gate/allowance.ts); defaults to this process. With a Redis gate store, the same Redis (allowance-redis.ts). */
  allowanceStore?: AllowanceStore;
  /** Aborts when the process shuts down: waits and polls end and answer with what they have. */
  shutdown?: AbortSignal;
  /**
   * Aborts requests on their way to the service; defaults to `shutdown`. An HTTP server draining
   * lets them finish instead: it ends only the waits, and exits after the drain time.
   */
  abortRequests?: AbortSignal;
  /** Counts the tool calls in flight, so a shutdown can wait for them to answer. */
  calls?: Calls;
  /** Signs the state that round-trip approvals carry through the client; the same on every replica. Defaults to a random key. */
  stateSecret?: string;
  /** Records every step of every gated call (observe/audit.ts); nothing is recorded without one. */
  audit?: AuditTrail;
  /** OpenTelemetry (observe/telemetry.ts), when the OTEL_* environment turns it on: a span per MCP request and per upstream attempt. */
  telemetry?: Telemetry;
}

/** The credentials one caller brings: an HTTP request's headers. */
export type Credentials = Pick<Config, 'accessToken' | 'apiKey' | 'monitoringApiKey'>;

export interface CallerOptions {
  credentials: Credentials;
  /**
   * An OAuth grant (auth/): its stable id is the caller's gate user, and its bound narrows the
   * server's configuration for this caller (read-only, toolsets, one app), never widens it. The
   * daily limits count per person (the service token the grant holds) and, where the person chose
   * lower limits at consent, per grant too.
   */
  grant?: { id: string; bound: Bound };
  /** Rewrites what texts call the credentials (the configuration's names) into what this caller sets (the headers). */
  wording?: (text: string) => string;
}

/**
 * Builds the MCP server for one stdio connection, or for one HTTP request of the caller it is given.
 * `method`, when known (a 2026-07-28 HTTP request names it in its Mcp-Method header, which the SDK
 * checks against the body), is the one method that server will answer: a tools/call server is built
 * without the views and prompts, which were a fifth of building it.
 */
export type ServerFactory = (caller?: CallerOptions, method?: string) => McpServer;

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

/** One caller's world: their credentials in the config, their secrets redacted, their own gate scope, the tools offered to them. */
interface Caller {
  scope: string;
  /** Whose daily limits the caller's calls count against. */
  payer: Payer;
  config: Config;
  /** The tools this caller's configuration selects, and everything built from them. */
  offer: Offer;
  log: Log;
  shown: Shown;
  api(): Promise<ApiClient>;
}

/**
 * Everything about one tool that does not depend on the caller, built once per process, and each
 * part only when first used: building every tool's schemas took a fifth of a start-up, before the
 * first call needs one of them (issue 31).
 */
interface PreparedTool {
  readonly tool: AnyTool;
  readonly inputSchema: z.ZodObject;
  readonly outputSchema: z.ZodObject;
  /** JSON Schemas as clients read them, converted on first use and kept. */
  inputJson(): Record<string, unknown>;
  outputJson(): Record<string, unknown>;
}

/**
 * One tool as a caller of one selection is shown it: texts without sentences naming tools the
 * selection leaves out (offer.ts), and the schemas of its app scope.
 */
function prepare(definition: () => AnyTool, config: Config, offered: Offered): PreparedTool {
  let tool: AnyTool | undefined;
  let inputSchema: z.ZodObject | undefined;
  let outputSchema: z.ZodObject | undefined;
  let input: Record<string, unknown> | undefined;
  let output: Record<string, unknown> | undefined;
  const prepared: PreparedTool = {
    get tool() {
      return (tool ??= shownTool(definition(), offered));
    },
    get inputSchema() {
      return (inputSchema ??= inputSchemaOf(prepared.tool, config));
    },
    get outputSchema() {
      return (outputSchema ??= outputSchemaOf(prepared.tool));
    },
    inputJson: () => (input ??= shownSchema(jsonSchemaOf(prepared.inputSchema, 'input'), offered)),
    outputJson: () => (output ??= shownSchema(jsonSchemaOf(prepared.outputSchema, 'output'), offered)),
  };
  return prepared;
}

/** What one selection of tools offers its callers: built once per distinct selection, and kept. */
interface Offer {
  offered: Offered & { tools: ToolLike[] };
  byName: Map<string, PreparedTool>;
  /** tools/list, built on first request from the very schemas the calls are checked with. */
  listing(): Tool[];
  prompts: ReturnType<typeof promptsOf>;
  instructions: string;
}

/**
 * Distinct selections kept (read-only or not, toolsets, tools, app): the configuration's own, and
 * one per narrower grant (issue 26); the oldest goes first.
 */
const MAX_OFFERS = 100;

/** The 2026-07-28 revision, which the SDK serves beside SUPPORTED_PROTOCOL_VERSIONS (its 2025-era list) but does not export. */
const MODERN_PROTOCOL_VERSION = '2026-07-28';
/** A prompt argument is cut to this before it is cleaned (it is shown at 200 characters): a caller may send megabytes. */
const MAX_PROMPT_ARG_CHARS = 1_000;
/** Callers whose API clients are kept between requests (a team's worth); the oldest goes first. */
const MAX_CALLERS = 1_000;
/** The server's configuration narrowed by a grant's bound: read-only stays, toolsets intersect, an app scope stays or is added. */
export function narrowed(config: Config, bound: Bound): Config {
  const toolsets = !bound.toolsets ? config.toolsets : !config.toolsets ? bound.toolsets : config.toolsets.filter((set) => bound.toolsets!.includes(set));
  const appId = config.appId ?? bound.appId;
  return { ...config, readOnly: config.readOnly || bound.readOnly, ...(toolsets ? { toolsets } : {}), ...(appId !== undefined ? { appId } : {}) };
}

/**
 * Prepares everything a server needs once (schemas, tool list, gate, store), and returns the factory
 * that builds a server per connection or per request: cheap, and the one error boundary of every call.
 */
export function createServerFactory(deps: ServerDeps): ServerFactory {
  const { config, log } = deps;
  const shutdown = deps.shutdown ?? new AbortController().signal;
  const clock = withShutdown(deps.clock ?? realClock, shutdown);
  const abortRequests = deps.abortRequests ?? shutdown;
  // Every call in flight listens to these two for as long as it runs, and removes its listener when
  // it ends: many at once is normal load, not the leak node warns about beyond 10.
  setMaxListeners(0, shutdown, abortRequests);
  const calls = deps.calls ?? trackCalls();
  const now = () => clock.now();
  const allowance = createAllowance({ store: deps.allowanceStore ?? createMemoryAllowanceStore({ now }), now, log });
  const gate = createGate({ store: deps.store ?? createMemoryStore({ now }), now, config, log, allowance, ...(deps.audit ? { audit: deps.audit } : {}) });
  // Made on first use, like the keys below: it reaches for Web Crypto, and loading crypto costs a start 6 ms (node-crypto.ts).
  let codecMade: ReturnType<typeof createRequestStateCodec<ApprovalState>> | undefined;
  const codec = () =>
    (codecMade ??= createRequestStateCodec<ApprovalState>({
      key: deps.stateSecret ?? nodeCrypto().randomBytes(32),
      ttlSeconds: Math.ceil(config.approvalTimeoutMs / 1000) + 60,
    }));

  // The tools themselves load on the first request that needs them (tools/list, tools/call): until
  // then the catalog (tools/catalog.ts) says all that choosing them and answering initialize need.
  let definitions: Map<string, AnyTool> | undefined = deps.tools && new Map(deps.tools.map((tool) => [tool.name, tool]));
  let loading: Promise<void> | undefined;
  const loadTools = () =>
    (loading ??= import('./tools/index.js').then(({ TOOLS }) => {
      definitions = new Map(TOOLS.map((tool) => [tool.name, tool]));
    }));
  const definitionOf = (name: string) => () => {
    const definition = definitions?.get(name);
    if (!definition) throw new Error(`tool ${name} was used before the tools loaded`);
    return definition;
  };

  const offers = new Map<string, Offer>();
  /**
   * The offer of one caller's configuration, by what selects tools and shapes their schemas; a
   * narrower configuration (a grant) gets its own, and tools/list, the instructions, every
   * description and every next step then name only what it offers.
   * @throws ConfigError when the configuration names a tool that does not exist.
   */
  function offerFor(callerConfig: Config): Offer {
    const key = JSON.stringify([callerConfig.readOnly, callerConfig.tools ?? null, callerConfig.toolsets ?? null, callerConfig.appId ?? null]);
    let offer = offers.get(key);
    if (offer) return offer;
    const offered = offeredTo<ToolLike>(callerConfig, deps.tools ?? CATALOG, config);
    const selected = offered.tools.map((tool) => prepare(definitionOf(tool.name), callerConfig, offered));
    let listing: Tool[] | undefined;
    const gatedNames = new Set(offered.tools.filter((tool) => tool.cost !== 'none').map((tool) => tool.name));
    offer = {
      offered,
      byName: new Map(offered.tools.map((tool, i) => [tool.name, selected[i]!])),
      // Our own tools/list, minus the "$schema" boilerplate of every entry.
      listing: () =>
        (listing ??= withViews(
          selected.map(({ tool, inputJson, outputJson }) => ({
            name: tool.name,
            title: tool.title,
            description: tool.description,
            inputSchema: inputJson() as Tool['inputSchema'],
            outputSchema: outputJson() as Tool['outputSchema'],
            annotations: tool.annotations,
          })),
          gatedNames,
        )),
      prompts: promptsOf(callerConfig, new Set(offered.tools.map((tool) => tool.name))),
      instructions: instructionsFor(callerConfig, offered, config),
    };
    offers.set(key, offer);
    if (offers.size > MAX_OFFERS) offers.delete(offers.keys().next().value as string);
    return offer;
  }
  // What telemetry may name: the server's own tools, prompts and protocol versions; a client's other strings are exported as _OTHER.
  const own = offerFor(config);
  const ownNames = { tools: new Set(own.byName.keys()), prompts: new Set(own.prompts.map(({ name }) => name)), protocolVersions: new Set([...SUPPORTED_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSION]) };

  // Users are told apart by keyed hashes of their credentials: the same on every replica and every
  // stdio server sharing a store (the state secret), and never a plain hash of a secret.
  let scopeKeyMade: string | Buffer | undefined;
  const scopeKey = () => (scopeKeyMade ??= deps.stateSecret ?? nodeCrypto().randomBytes(32));
  const defaultScope = () => gateScope(scopeKey(), config[GATED_CREDENTIAL]);
  const defaultCaller = callerOf(config, defaultScope, { api: deps.api, payer: () => ({ person: defaultScope() }) });
  const callers = new Map<string, Caller>();
  function callerFor({ credentials, wording, grant }: CallerOptions): Caller {
    // The API client needs all three credentials; the gate scope only the one gated tools send. A
    // grant's user is the grant itself, and its bound is part of who the caller is. The id is only a
    // key of this map, which holds the same credentials in each caller's config: no hash is needed.
    const id = JSON.stringify([credentials.accessToken, credentials.apiKey, credentials.monitoringApiKey, grant ?? null]);
    let caller = callers.get(id);
    if (caller) callers.delete(id); // re-inserted last: insertion order is age order
    else caller = newCaller(credentials, wording, grant);
    callers.set(id, caller);
    if (callers.size > MAX_CALLERS) callers.delete(callers.keys().next().value as string);
    return caller;
  }

  function newCaller(credentials: Credentials, wording: CallerOptions['wording'], grant: CallerOptions['grant']): Caller {
    const callerConfig = grant ? narrowed({ ...config, ...credentials }, grant.bound) : { ...config, ...credentials };
    // The person is the service token's scope however they connect, so a second grant (or header
    // mode beside it) never brings a second share of the operator's per-user limits.
    const person = gateScope(scopeKey(), credentials[GATED_CREDENTIAL]);
    const payer: Payer = grant ? { person, grant: { scope: `grant:${grant.id}`, spendMicros: grant.bound.spendLimitMicros, turns: grant.bound.aiTurnsDaily } } : { person };
    return callerOf(callerConfig, () => (grant ? `grant:${grant.id}` : person), { perRequest: true, payer: () => payer, ...(wording ? { wording } : {}) });
  }

  function callerOf(
    callerConfig: Config,
    scopeOf: () => string,
    { api, wording, perRequest = false, payer: payerOf }: { api?: ApiClient | undefined; wording?: (text: string) => string; perRequest?: boolean; payer: () => Payer },
  ): Caller {
    const redact = redactor(secretsOf(callerConfig));
    // The configured caller's secrets are already redacted by the server's log; a request's are not.
    const callerLog = perRequest ? redactingLog(log, redact) : log;
    // The HTTP client (src/api/) loads on the first tool call: start-up never pays for it.
    let client: Promise<ApiClient> | undefined = api && Promise.resolve(api);
    // Keyed hashes, made when a call first needs them (the configured caller's before any call would load crypto at start).
    let scope: string | undefined;
    let payer: Payer | undefined;
    return {
      get scope() {
        return (scope ??= scopeOf());
      },
      get payer() {
        return (payer ??= payerOf());
      },
      config: callerConfig,
      offer: offerFor(callerConfig),
      log: callerLog,
      shown: { redact: wording ? reworded(redact, wording) : redact, sandbox: config.sandbox },
      api: () =>
        (client ??= Promise.resolve(deps.ready)
          .then(() => import('./api/client.js'))
          .then(({ createApiClient }) => createApiClient({ config: callerConfig, log: callerLog, redact, shutdown: abortRequests, observe: deps.telemetry?.upstream }))),
    };
  }

  return (options, method) => {
    const caller = options ? callerFor(options) : defaultCaller;
    const server = new McpServer(
      { name: SERVER_NAME, version: SERVER_VERSION },
      {
        // The views (apps.ts): hosts look for the extension here before they show a server's views.
        capabilities: { tools: {}, ...(caller.offer.prompts.length ? { prompts: {} } : {}), extensions: { [UI_EXTENSION]: {} } },
        instructions: caller.offer.instructions,
        jsonSchemaValidator: formAnswerValidator as jsonSchemaValidator,
        requestState: { verify: (state, ctx) => codec().verify(state, ctx) },
        inputRequired: { roundTimeoutMs: config.approvalTimeoutMs },
      },
    );
    // One tools/call handler over the tools prepared above, where registerTool would build all 28
    // registrations again for every request (the SDK keeps them per instance, and createMcpHandler
    // wants a new instance per request): a request costs the one tool it calls.
    server.server.setRequestHandler('tools/call', async (request, ctx) => {
      if (!definitions) await loadTools();
      return callTool(request.params, ctx, server, caller);
    });
    server.server.setRequestHandler('tools/list', async () => {
      if (!definitions) await loadTools();
      return { tools: caller.offer.listing() };
    });
    if (method !== 'tools/call') {
      registerViews(server);
      for (const prompt of caller.offer.prompts) server.registerPrompt(prompt.name, prompt.spec, prompt.render);
    }
    guardServer(server);
    return deps.telemetry ? deps.telemetry.watch(server, ownNames) : server;
  };

  /**
   * What McpServer's own tools/call does for a registered tool (SDK 2.4), with the tool's schemas and
   * their JSON built once: an unknown name is a protocol error; a result that is not an error and does
   * not ask for input must match the output schema; the result is projected for the request's era;
   * whatever throws becomes an error result with its message.
   */
  async function callTool(params: CallToolRequestParams, ctx: ServerContext, server: McpServer, caller: Caller): Promise<CallToolResult | InputRequiredResult> {
    const prepared = caller.offer.byName.get(params.name);
    if (!prepared) {
      // Offered by this server but not to this caller: the grant they connected with leaves it out.
      if (own.byName.has(params.name)) return outsideGrant(params.name, caller);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Tool ${limit(params.name, MAX_COMPARED_CHARS)} not found`);
    }
    const { tool, inputSchema, outputSchema, outputJson } = prepared;
    try {
      const result = await calls.track(
        // The SDK's own argument check is left out: checkArguments gives the model a better answer than its raw issue list.
        checkedCall(tool, inputSchema, params.arguments ?? {}, ctx, server, caller).then<CallToolResult | InputRequiredResult, CallToolResult>(
          (outcome) => ('ask' in outcome ? askResult(outcome, caller, ctx) : present(outcome, caller.shown, showsViews(ctx))),
          (error: unknown) => presentError(errorText(error, tool, caller.log), nextAfter(error, tool.name), caller.shown),
        ),
      );
      if (isInputRequiredResult(result)) return result;
      const invalid = result.isError ? undefined : outputProblem(tool.name, outputSchema, result.structuredContent);
      if (invalid) return { content: [{ type: 'text', text: invalid }], isError: true };
      return server.server.projectCallToolResult(result, outputJson());
    } catch (error) {
      if (error instanceof ProtocolError && error.code === ProtocolErrorCode.UrlElicitationRequired) throw error;
      return { content: [{ type: 'text', text: error instanceof Error ? error.message : String(error) }], isError: true };
    }
  }

  async function context(ctx: ServerContext, caller: Caller): Promise<ToolContext> {
    const token = ctx.mcpReq._meta?.progressToken;
    let step = 0;
    return {
      api: await caller.api(),
      config: caller.config,
      offered: caller.offer.offered,
      clock,
      signal: ctx.mcpReq.signal,
      shutdown,
      allowance: () => allowance.report(caller.payer, caller.config),
      progress: async (message, progress, total) => {
        if (token === undefined) return;
        step += 1;
        await ctx.mcpReq
          .notify({
            method: 'notifications/progress',
            params: { progressToken: token, progress: progress ?? step, ...(total ? { total } : {}), message: caller.shown.redact(sanitize(message, 300)) },
          })
          .catch((error: unknown) => caller.log.debug(`progress notification failed: ${String(error)}`));
      },
    };
  }

  async function checkedCall(tool: AnyTool, inputSchema: z.ZodObject, args: unknown, ctx: ServerContext, server: McpServer, caller: Caller): Promise<ToolResult | AskApproval> {
    const checked = checkArguments(tool.name, inputSchema, args, caller.offer.offered);
    return call(tool, caller.config.appId ? { ...checked, app_id: caller.config.appId } : checked, ctx, server, caller);
  }

  async function call(tool: AnyTool, args: Record<string, unknown>, ctx: ServerContext, server: McpServer, caller: Caller): Promise<ToolResult | AskApproval> {
    if (caller.config.readOnly && !tool.annotations.readOnlyHint) {
      throw new RefusedError(`${tool.name} is disabled: the server runs in read-only mode (APPMGMT_READ_ONLY). Nothing was sent.`);
    }
    if (tool.cost === 'none') {
      checkedCanonical(args); // the size limit holds for every tool, not only gated ones
      return withArguments(await tool.run(args, await context(ctx, caller)), args, caller.config.appId !== undefined);
    }
    // Issue 29: a credential the service already answered as read-only gets no warning to approve.
    const since = (await caller.api()).readOnlySince(GATED_CREDENTIAL);
    if (since !== undefined) throw new ReadOnlyCredentialError(GATED_CREDENTIAL, since);
    const { confirm, ...request } = args;
    return gate.call(tool as GatedTool, request, confirm, await context(ctx, caller), {
      scope: caller.scope,
      payer: caller.payer,
      approval: approvalChannel(server, ctx, caller.shown.redact),
      redact: caller.shown.redact,
    });
  }

  /** A tool this server offers that the caller's grant leaves out: refused as that, with nothing sent. */
  function outsideGrant(name: string, caller: Caller): CallToolResult {
    const { readOnly, toolsets, appId } = caller.config;
    const bound = [readOnly ? 'read-only' : undefined, toolsets ? `toolsets ${toolsets.join(', ')}` : undefined, appId ? `app ${appId}` : undefined].filter(Boolean).join('; ');
    const text = `NOT SENT: ${name} is outside what this connection was granted (${bound}). Nothing was sent. Only the person can widen it, by connecting again and choosing more on the consent page.`;
    return presentError(text, 'Tell the user this connection was not granted that; do not call it again on this connection.', caller.shown);
  }

  /** The form of a round-trip approval, with its state signed so any replica can check it on the retry. */
  async function askResult({ ask }: AskApproval, caller: Caller, ctx: ServerContext): Promise<InputRequiredResult> {
    return inputRequired({
      inputRequests: { approval: inputRequired.elicit({ mode: 'form', message: caller.shown.redact(sanitize(ask.message, 500)), requestedSchema: APPROVAL_FORM }) },
      requestState: await codec().mint(ask.state, ctx),
    });
  }

  function errorText(error: unknown, tool: AnyTool, callerLog: Log): string {
    const known = describeError(error, tool.statusHints, config.timeoutMs);
    if (known !== undefined) return known;
    callerLog.error(`${tool.name} failed unexpectedly: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    return `Internal error in ${tool.name}; details are in the server log (stderr). A retry will probably fail the same way.`;
  }
}

/** The SDK's words when a result does not match its tool's output schema, or undefined when it does. */
function outputProblem(name: string, schema: z.ZodObject, structured: unknown): string | undefined {
  if (structured === undefined) return `Output validation error: Tool ${name} has an output schema but no structured content was provided`;
  const parsed = schema.safeParse(structured);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues.map((issue) => (issue.path.length ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message));
  return `Output validation error: Invalid structured content for tool ${name}: ${issues.join(', ')}`;
}

/** One server for the configured caller: what stdio and in-process tests use. */
export function createServer(deps: ServerDeps): McpServer {
  return createServerFactory(deps)();
}

/**
 * A 2026-07-28 request's envelope, which carries its client's capabilities with every request;
 * undefined for a 2025-era request (its client declared them at initialize, if on this server at all).
 */
function envelopeOf(ctx: ServerContext): { capabilities: ClientCapabilities | undefined } | undefined {
  const envelope = ctx.mcpReq.envelope as Record<string, unknown> | undefined;
  if (envelope === undefined || Object.keys(envelope).length === 0) return undefined;
  return { capabilities: envelope[CLIENT_CAPABILITIES_META_KEY] as ClientCapabilities | undefined };
}

/**
 * Whether this request's result carries its view data (apps.ts). A 2026-07-28 request whose client
 * capabilities leave the MCP Apps extension out shows no view, so the data is left out. A 2025-era
 * request gets it always: over stateless HTTP its client's capabilities are unknown.
 */
function showsViews(ctx: ServerContext): boolean {
  const capabilities = envelopeOf(ctx)?.capabilities;
  return capabilities === undefined || capabilities.extensions?.[UI_EXTENSION] !== undefined;
}

/**
 * How this request's client takes approval forms. A 2026-07-28 request says so in its envelope and
 * answers in rounds; a 2025-era session declared it at initialize and is asked inline. A bare
 * `elicitation: {}` means forms (its meaning before modes existed).
 */
function approvalChannel(server: McpServer, ctx: ServerContext, redact: (text: string) => string): ApprovalChannel {
  const envelope = envelopeOf(ctx);
  const modern = envelope !== undefined;
  const capabilities = modern ? envelope.capabilities : server.server.getClientCapabilities();
  // A 2025-era request without an initialize on this server: stateless HTTP, no way back to the client.
  if (!modern && capabilities === undefined) return { kind: 'none', sessionless: true };
  const elicitation = capabilities?.elicitation;
  if (!elicitation || (!elicitation.form && elicitation.url)) return { kind: 'none' };
  if (modern) {
    const state = ctx.mcpReq.requestState();
    if (state === undefined) return { kind: 'rounds' };
    const view = inputResponse(ctx.mcpReq.inputResponses, 'approval');
    return { kind: 'rounds', retry: { state, answer: view.kind === 'elicit' ? { action: view.action, ...(view.content ? { content: view.content } : {}) } : undefined } };
  }
  return {
    kind: 'inline',
    showForm: (message, { signal, timeoutMs }) =>
      ctx.mcpReq.elicitInput({ mode: 'form', message: redact(sanitize(message, 500)), requestedSchema: APPROVAL_FORM }, { signal, timeout: timeoutMs }),
  };
}

/** The workflow prompts whose tools are all enabled; app_id leaves their arguments when the server is scoped. */
function promptsOf(config: Config, enabled: Set<string>) {
  return PROMPTS.filter((candidate) => candidate.tools.every((name) => enabled.has(name))).map((prompt) => {
    const { app_id: _, ...unscoped } = prompt.args as z.ZodRawShape;
    return {
      name: prompt.name,
      spec: { title: prompt.title, description: prompt.description, argsSchema: z.object(config.appId ? unscoped : (prompt.args as z.ZodRawShape)) },
      render: (args: Record<string, unknown>) => {
        const clean = Object.fromEntries(Object.entries(args).map(([name, value]) => [name, value === undefined ? value : sanitize(limit(String(value), MAX_PROMPT_ARG_CHARS), 200)]));
        const app = `app ${config.appId ?? clean.app_id}`;
        return { messages: [{ role: 'user' as const, content: { type: 'text' as const, text: prompt.message(clean, app) } }] };
      },
    };
  });
}
