import type { z } from 'zod';
import type { ApiClient } from '../api/client.js';
import type { Config } from '../config.js';
import type { StatusHints } from '../errors.js';

export type Cost = 'none' | 'money' | 'credits';

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

export interface ToolContext {
  api: ApiClient;
  config: Config;
  clock: Clock;
  /** Aborts when the client cancels the MCP request. */
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for them; otherwise does nothing. */
  progress(message: string, progress?: number, total?: number): Promise<void>;
}

export interface ToolResult {
  text: string;
  /** Typed facts for scripts; required when the tool declares an output shape. */
  structured?: Record<string, unknown>;
  /** A 200 that reports failure is still a failure. */
  isError?: boolean;
}

/** What the confirmation gate needs from a costly tool. */
export interface Gate<Args> {
  /**
   * Local checks the spec allows (throw InputError) and the warning: what will happen and what it costs.
   * Never sends anything.
   */
  warning(args: Args, config: Config): string;
  /** One line for the human approval form, with the exact amount or credit cost. */
  approval(args: Args): string;
  /** What an unknown outcome means for this tool and how to find out before trying again. */
  unknownOutcome: string;
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
  /** Typed facts of a successful result (read tools). */
  output?: Shape;
  annotations: Annotations;
  /** What each HTTP status means for this operation. */
  statusHints?: StatusHints;
  run(args: Args<S>, ctx: ToolContext): Promise<ToolResult>;
}

export type ToolDefinition<S extends Shape = Shape> = Common<S> &
  ({ cost: 'none'; gate?: undefined } | { cost: 'money' | 'credits'; gate: Gate<Args<S>> });

/** Identity with types: each tool file exports one of these. */
export function defineTool<S extends Shape>(definition: ToolDefinition<S>): ToolDefinition<S> {
  return definition;
}

/** The registry holds tools of different shapes; this is their common view. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = ToolDefinition<any>;
