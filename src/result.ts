import type { CallToolResult } from '@modelcontextprotocol/server';
import { mapStrings, strip, type Redact } from './text.js';
import type { ToolResult } from './tools/define.js';

/**
 * A tool's result as the client receives it: the text with its next step, and on success the
 * structured facts with the same next step. Everything passes through the redactor, and structured
 * strings lose hidden characters as the text does.
 */
/** How results are shown to one caller: their secrets redacted, and whether they are sandbox results. */
export interface Shown {
  redact: Redact;
  sandbox: boolean;
}

export function present(result: ToolResult, options: Shown): CallToolResult {
  const { redact, sandbox } = options;
  const text = redact(strip(`${sandbox ? "[sandbox] " : ""}${result.text}\nNext: ${result.next}`));
  if (result.isError || !result.structured) return { content: [{ type: 'text', text }], ...(result.isError ? { isError: true } : {}) };
  const structured = mapStrings({ ...result.structured, next: result.next }, (value) => redact(strip(value)));
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

/** An error as the client receives it: text only. */
export function presentError(text: string, options: Shown): CallToolResult {
  return { content: [{ type: 'text', text: options.redact(`${options.sandbox ? '[sandbox] ' : ''}${text}`) }], isError: true };
}
