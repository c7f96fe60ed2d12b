import type { CallToolResult } from '@modelcontextprotocol/server';
import { ApiError, AppError, CancelledError, ConfigError, InputError, isReadOnlyRefusal, ReadOnlyCredentialError, UnreachableError } from './errors.js';
import { mapStrings, strip, type Redact } from './text.js';
import type { ToolResult } from './tools/define.js';

/** How results are shown to one caller: their secrets redacted, and whether they are sandbox results. */
export interface Shown {
  redact: Redact;
  sandbox: boolean;
}

/** Where a result carries the data of its MCP Apps view (ToolResult.view). */
export const VIEW_META_KEY = 'app-management/view';

/**
 * A tool's result as the client receives it: the text with its next step, and the structured facts
 * with the same next step. A failure or refusal is a result too: its structured part is `error` (the
 * text) and `next`, plus any facts the tool gave, a shape every output schema admits (tools/contract.ts).
 * Everything passes through the redactor, and structured strings lose hidden characters as the text does.
 * The view data goes to every client that may show it (`views`: apps.ts); its `arguments`, the exact
 * ones a view sends back to confirm a warning, are redacted but otherwise kept as they are, so they
 * still match the warning.
 */
export function present(result: ToolResult, options: Shown, views = true): CallToolResult {
  const { redact, sandbox } = options;
  // Every string is cleaned and kept; one search of them all then usually shows that redacting them
  // one by one would change none (text.ts, unchangedAll).
  const seen: string[] = [];
  const keep = (fix: (value: string) => string) => (value: string) => {
    const out = fix(value);
    seen.push(out);
    return out;
  };
  const facts = { ...result.structured, ...(result.isError ? { error: result.text } : {}), next: result.next };
  let text = keep(strip)(`${sandbox ? '[sandbox] ' : ''}${result.text}\nNext: ${result.next}`);
  let structured = mapStrings(facts, keep(strip));
  let view = views && result.view && viewData(result.view, keep(strip), keep((value) => value));
  if (!redact.unchangedAll?.(seen)) {
    text = redact(text);
    structured = mapStrings(structured, redact);
    view = view && mapStrings(view, redact);
  }
  return { content: [{ type: 'text', text }], structuredContent: structured, ...(result.isError ? { isError: true } : {}), ...(view ? { _meta: { [VIEW_META_KEY]: view } } : {}) };
}

/** The view data cleaned as the facts are, but its `arguments`, which must still match the warning, only redacted (after). */
function viewData(view: Record<string, unknown>, shown: (value: string) => string, exactly: (value: string) => string): Record<string, unknown> {
  const { arguments: exact, ...rest } = view;
  return { ...mapStrings(rest, shown), ...(exact === undefined ? {} : { arguments: mapStrings(exact, exactly) }) };
}

/** An error as the client receives it: the text as it always was, and `{error, next}` for clients that read only structured results. */
export function presentError(text: string, next: string, options: Shown): CallToolResult {
  const shown = (value: string) => options.redact(strip(value));
  return {
    content: [{ type: 'text', text: options.redact(`${options.sandbox ? '[sandbox] ' : ''}${text}`) }],
    structuredContent: { error: shown(text), next: shown(next) },
    isError: true,
  };
}

/** The next step after a call of `tool` ended with `error`; the error's text says the details. */
export function nextAfter(error: unknown, tool: string): string {
  if (error instanceof ReadOnlyCredentialError || isReadOnlyRefusal(error)) {
    return `Tell the user this credential is read-only: ${tool} needs a full-access one, and calling again will not help. Most reads still work with it.`;
  }
  if (error instanceof InputError) return `Correct ${error.field} as the error says, then call ${tool} again.`;
  if (error instanceof ApiError) {
    if (error.status === 429) return `Wait as the error says, then call ${tool} again.`;
    if (error.status >= 500) return `Call ${tool} again later; a retry may help.`;
    // What else a status means differs by tool (its status hints, in the error's text).
    return `Do what the error says before calling ${tool} again; it says whether a retry helps.`;
  }
  if (error instanceof UnreachableError) return `Call ${tool} again later; if it keeps failing, tell the server's operator.`;
  if (error instanceof CancelledError) return `If the request may have reached the service, check its effect before calling ${tool} again.`;
  if (error instanceof ConfigError) return "Tell the server's operator: the server's settings must change first.";
  if (error instanceof AppError) return `Do what the error says before calling ${tool} again.`;
  return "Do not retry: tell the server's operator (details are in the server log).";
}
