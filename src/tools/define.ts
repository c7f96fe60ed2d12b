import type { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { StatusHints } from '../errors.js';
import type { AllowanceReport } from '../gate/allowance.js';

/** What a call costs. `permanent`: it deletes something for good. Every cost but `none` is gated. */
export type Cost = 'none' | 'money' | 'credits' | 'permanent';

/** All four hints are required, so no tool can leave one to a client's default. */
export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface Clock {
  now(): number;
  /** Resolves after `ms`, or rejects when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/**
 * The tools one caller is offered: what their configuration selects (read-only mode, --tools,
 * --toolsets; an OAuth grant narrows the same settings). A result names only these; for another it
 * says that what it does is not offered here, and why.
 */
export interface Offered {
  has(tool: string): boolean;
  /** One sentence: what `tool` does is not offered by this server, and why. Never the tool's name. */
  missing(tool: string): string;
}

export interface ToolContext {
  api: ApiClient;
  /** The caller's configuration: the server's, narrowed for this caller. */
  config: Config;
  /** The tools this caller is offered. */
  offered: Offered;
  clock: Clock;
  /** Aborts when the client cancels the MCP request. */
  signal: AbortSignal;
  /** Aborts when the server shuts down: long waits end early and answer with what they have. */
  shutdown: AbortSignal;
  /** Sends a progress notification when the client asked for them; otherwise does nothing. */
  progress(message: string, progress?: number, total?: number): Promise<void>;
  /** Set on a confirmed call of a tool whose gate has `requestId`: the X-Request-ID to send. */
  requestId?: string;
  /** The caller's daily limits and what is used of them today (gate/allowance.ts); set by the server. */
  allowance?: () => Promise<AllowanceReport | undefined>;
}

/**
 * What a tool returns. The server appends `Next: <next>` to the text and `next` to the structured
 * facts, so the model and a script read the same next step.
 */
export interface ToolResult {
  /** Compact lines for the model, without the next step. */
  text: string;
  /** The next step: the tool and arguments to call, or a short sentence saying nothing more is needed. */
  next: string;
  /** Typed facts matching the tool's output shape; required unless `isError` (then any facts it has, beside `error`). */
  structured?: Record<string, unknown>;
  /** A 200 that reports failure is still a failure: the client gets `error` (the text) and `next` in the structured part. */
  isError?: boolean;
  /**
   * What an MCP Apps view of this result shows beyond the facts (titles, captions, the warning's
   * lines, a warning's exact arguments): sent in the result's `_meta` (src/result.ts VIEW_META_KEY),
   * which the model does not see. Untrusted strings stay data: views render text.
   */
  view?: Record<string, unknown>;
}

/** What a confirmed call will do, shown before anything is sent. */
export interface Warning {
  /** One line: what will happen, e.g. `Create SMART ad campaign "Spring" on app app_1`. */
  action: string;
  /** One line: the exact amount or credits, or what is lost for good. */
  cost: string;
  /** The whole request that will be sent, one line per field, and what to know before agreeing. */
  details: string[];
  /** What the call commits, when the warning's own read found it (so counting it needs no second read). */
  commits?: Commitment;
}

/** The new daily budget a confirmed call commits: what the daily spend limits count (gate/allowance.ts). */
export interface Commitment {
  /** Micros of the account currency added to daily budgets; undefined when the service did not say, so it cannot be counted. */
  micros: number | undefined;
}

/** What the confirmation gate needs from a gated tool. */
export interface Gate<Args> {
  /** Local checks that run on every call, confirmed or not, before anything else (throw InputError or RefusedError). */
  check?(args: Args, config: Config): void;
  /**
   * Runs the local checks (throw InputError or RefusedError) and describes the call. May read from
   * the API (the current budget, say); never writes.
   */
  warn(args: Args, ctx: ToolContext): Warning | Promise<Warning>;
  /**
   * Tools that cost money: the new daily budget a confirmed call commits (a created campaign's budget,
   * a resumed one's, a budget's increase), read as the warning reads it. Called just before the
   * confirmed call is sent, only when a daily spend limit applies; may read, never writes.
   */
  commits?(args: Args, ctx: ToolContext): Commitment | Promise<Commitment>;
  /** What an unknown outcome means for this tool and how to find out before trying again. */
  unknownOutcome: string;
  /** The service deduplicates repeats by X-Request-ID: the attempt after an unknown outcome reuses its id. */
  requestId?: boolean;
  /**
   * Statuses that prove nothing changed where the gate would otherwise call the outcome unknown
   * (408, 409, 5xx), each with what it means for this operation: the service documents it so.
   */
  refusals?: Partial<Record<number, Refusal>>;
  /**
   * What a call that answered did, in a few words of our own and ids from the answer, never argument
   * values (e.g. `created campaign cmp_1`): the gate keeps it for the window to answer a repeat.
   */
  done?(result: ToolResult): string;
}

/** A status the service documents as a sure refusal of one operation. */
export interface Refusal {
  /** What the status means, e.g. "the recommended figure changed since it was read". */
  why: string;
  /** What to do instead. */
  next: string;
}

type Shape = z.ZodRawShape;
type Args<S extends Shape> = z.infer<z.ZodObject<S>>;

interface Common<S extends Shape> {
  /** snake_case verb_noun. */
  name: string;
  /** Title Case. */
  title: string;
  /** For a model: what it does, side effects and cost, what to call next. */
  description: string;
  input: S;
  /** Typed facts of a successful result; the server adds `next` (and the gate's fields on gated tools). */
  output: Shape;
  annotations: Annotations;
  /** What each HTTP status means for this operation. */
  statusHints?: StatusHints;
  run(args: Args<S>, ctx: ToolContext): Promise<ToolResult>;
}

export type ToolDefinition<S extends Shape = Shape> = Common<S> &
  ({ cost: 'none'; gate?: undefined } | { cost: Exclude<Cost, 'none'>; gate: Gate<Args<S>> });

/** Identity with types: each tool file exports one of these. */
export function defineTool<S extends Shape>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

/** The registry holds tools of different shapes; this is their common view. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any>;
export type GatedTool = AnyTool & { gate: Gate<Record<string, unknown>> };
