import type { ChatMessage } from '../../api/schemas.js';
import { sanitize } from '../../text.js';

/** Builder-chat messages as the chat tools show them: trimmed, hidden ones skipped, waiting questions first. */

/** The tool-call status that means the AI cannot continue until the user answers (service facts). */
export const WAITING = 'waiting_for_user_input';

/** Tool calls listed per message; the rest are counted. A turn can make dozens. */
const MAX_TOOL_CALLS = 6;

export interface ShownToolCall {
  name: string;
  status: string;
}

export interface ShownMessage {
  role: string;
  content: string;
  toolCalls: ShownToolCall[];
  moreToolCalls: number;
  /** Some tool call of the message waits for the user's answer. */
  waiting: boolean;
}

/** One message, its content cut to `maxChars`; waiting tool calls are listed before the others. */
export function shownMessage(message: ChatMessage, maxChars: number): ShownMessage {
  const calls = (message.tool_calls ?? []).map((call) => ({ name: sanitize(call.name ?? 'unnamed', 60), status: sanitize(call.status ?? 'unknown', 40) }));
  const ordered = [...calls.filter((call) => call.status === WAITING), ...calls.filter((call) => call.status !== WAITING)];
  return {
    role: sanitize(message.role ?? 'unknown', 20),
    content: sanitize(message.content ?? '', maxChars),
    toolCalls: ordered.slice(0, MAX_TOOL_CALLS),
    moreToolCalls: Math.max(0, ordered.length - MAX_TOOL_CALLS),
    waiting: ordered.some((call) => call.status === WAITING),
  };
}

/** The newest assistant message that is not hidden, or undefined. */
export function newestReply(messages: readonly ChatMessage[], maxChars: number): ShownMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'assistant' && !message.hidden) return shownMessage(message, maxChars);
  }
  return undefined;
}

/** "Tool calls: ask_user (waiting_for_user_input), edit_files (completed), and 3 more". */
export function toolCallsText(message: Pick<ShownMessage, 'toolCalls' | 'moreToolCalls'>): string {
  const listed = message.toolCalls.map((call) => `${call.name} (${call.status})`).join(', ');
  return `Tool calls: ${listed}${message.moreToolCalls > 0 ? `, and ${message.moreToolCalls} more` : ''}`;
}
