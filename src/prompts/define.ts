import type { z } from 'zod';

/**
 * A workflow prompt (clients such as Claude Code offer them as slash commands): the few arguments it
 * needs and one message that walks the model through the tools in order. It is offered only when
 * every tool it names is enabled.
 */
export interface PromptDefinition<S extends z.ZodRawShape = z.ZodRawShape> {
  /** snake_case, like the tools. */
  name: string;
  title: string;
  description: string;
  /** Prompt arguments are strings; `app_id` is dropped when the server is scoped to one app. */
  args: S;
  /** The tools the message walks through, in order. */
  tools: string[];
  /** The message; `app` is the app id (or "the app this server is scoped to"). */
  message(args: z.infer<z.ZodObject<S>>, app: string): string;
}

export function definePrompt<S extends z.ZodRawShape>(definition: PromptDefinition<S>): PromptDefinition<S> {
  return definition;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyPrompt = PromptDefinition<any>;

/** The confirmation rule, said the same way in every prompt that reaches a gated tool. */
export const CONFIRM_RULE =
  'It answers first with a warning and sends nothing: show me the warning and wait for my explicit yes; only then call it again with exactly the same arguments plus confirm: true. Never add confirm: true on your own.';
