import { z } from 'zod';
import type { ChatMessage } from '../../api/schemas.js';
import { idText, quote } from '../../text.js';
import { defineTool, type ToolContext, type ToolResult } from '../define.js';
import { appId, whole } from '../fields.js';
import { approxTokens, aside, nextCall, plural, stepTo } from '../format.js';
import { shownMessage, toolCallsText, type ShownMessage } from './messages.js';
import { touchesConflict } from './turn-next.js';

/** A conversation read, not an export: the newest messages are the ones a next step needs. */
const MAX_LIMIT = 50;
/** Characters of each message shown; a waiting question gets more, since the user must read it. */
const CONTENT_CHARS = 300;
const QUESTION_CHARS = 800;
/** Rough tokens the message lines may take; the structured copy is as large, so both stay under 2,000. */
const LINES_BUDGET = 700;
/** Only bounds the input: a conversation of a million messages is not read by paging through it. */
const MAX_SKIP = 1_000_000;

export const readAppConversation = defineTool({
  name: 'read_app_conversation',
  title: 'Read App Conversation',
  description:
    "The app's builder chat: recent messages, oldest first, with tool calls. Flags a question the AI waits on. Answer it with send_app_chat_message.",
  input: {
    app_id: appId,
    limit: whole(1, MAX_LIMIT).default(10).describe('Newest messages to read.'),
    skip: whole(0, MAX_SKIP).optional().describe('Newest messages to skip.'),
  },
  output: {
    messages: z.array(
      z.strictObject({
        role: z.string(),
        content: z.string().describe('Trimmed; empty when the turn was carried by tool calls.'),
        tool_calls: z.array(z.strictObject({ name: z.string(), status: z.string() })),
      }),
    ),
    hidden_skipped: z.number().describe("The service's internal notes, not part of the chat."),
    left_out: z.number().describe('Older messages left out for size.'),
    waiting_for_input: z.boolean().describe('true: the AI waits for an answer.'),
    next_skip: z.number().optional().describe('skip value for older messages.'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  cost: 'none',
  statusHints: {
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: "The credential may not read this app's chat; workspace API keys are refused by chat endpoints.",
    404: "App not found (or not in the credential's workspace).",
  },
  async run({ app_id, limit, skip = 0 }, ctx) {
    const conversation = await ctx.api.readAppConversation(app_id, limit, { signal: ctx.signal }, skip);
    return describeConversation(ctx, app_id, conversation.messages.slice(-limit), { limit, skip });
  },
});

function describeConversation(ctx: ToolContext, app_id: string, recent: ChatMessage[], { limit, skip }: { limit: number; skip: number }): ToolResult {
  const visible = recent.filter((message) => !message.hidden);
  const shown = withinBudget(visible);
  const leftOut = visible.length - shown.length;
  // Older messages: those left out for size, or, when the page came back full, whatever precedes it.
  const covered = recent.length - leftOutRaw(recent, leftOut);
  const nextSkip = leftOut > 0 || recent.length >= limit ? skip + covered : undefined;
  const older = nextSkip === undefined ? '' : nextCall(ctx.config, 'read_app_conversation', { app_id, limit: limit === 10 ? undefined : limit, skip: nextSkip });
  const waiting = shown.filter((message) => message.waiting).at(-1);
  const hidden = recent.length - visible.length;
  // Issue 29: "hidden" needs its meaning, and the missing dates need saying, or a model guesses both.
  const hiddenNote = hidden ? `${plural(hidden, 'hidden message')} skipped: the service's internal notes, not part of the chat` : '';
  const notes = [hiddenNote, leftOut ? `${leftOut} older left out for size` : ''].filter(Boolean);
  const lines = [
    shown.length
      ? `Conversation of app ${idText(app_id)}: ${plural(shown.length, 'message')}, oldest first; the service gives messages no dates${notes.length ? ` (${notes.join('; ')})` : ''}.`
      : `The conversation of app ${idText(app_id)} has no visible messages${hidden ? ` (${hiddenNote})` : ''}.`,
    ...shown.map((message, i) => `${i + 1}. ${lineOf(message)}`),
  ];
  if (waiting) lines.push(`THE AI IS WAITING FOR AN ANSWER to message ${shown.indexOf(waiting) + 1}: it cannot continue until the user answers.`);
  if (older) lines.push(`Older messages${leftOut > 0 ? '' : ' may'} precede these: ${older}.`);
  return {
    text: lines.join('\n'),
    next: waiting
      ? `Show the question to the user. ${stepTo(ctx, 'send_app_chat_message', { app_id, content: "<the user's answer>" }, (call) => `Send their answer with ${call} (it consumes credits; a confirmation will be asked).`)}`
      : touchesConflict(recent)
        ? stepTo(
            ctx,
            'pull_repo_changes',
            { app_id },
            (call) => `If the merge conflict's question here is answered, call ${call} (free) to finish the merge${aside(ctx, 'resolve_repo_conflicts', {}, (resolve) => ` before any ${resolve} (credits)`)}.`,
          )
        : older
          ? `Nothing more is needed, unless the user asks about earlier messages: ${older}.`
          : 'Nothing more is needed.',
    structured: {
      messages: shown.map((message) => ({ role: message.role, content: message.content, tool_calls: message.toolCalls })),
      hidden_skipped: hidden,
      left_out: leftOut,
      waiting_for_input: waiting !== undefined,
      ...(nextSkip !== undefined ? { next_skip: nextSkip } : {}),
    },
  };
}

/** How many of the oldest raw messages (hidden ones among them) lie before the oldest of the newest `leftOut`-free run. */
function leftOutRaw(recent: ChatMessage[], leftOut: number): number {
  if (leftOut === 0) return 0;
  let visibleSeen = 0;
  for (let i = 0; i < recent.length; i++) {
    if (!recent[i]!.hidden) visibleSeen += 1;
    if (visibleSeen === leftOut) return i + 1;
  }
  return recent.length;
}

function lineOf(message: ShownMessage): string {
  const content = message.content ? quote(message.content, QUESTION_CHARS) : '(no text)';
  return `${message.role}: ${content}${message.toolCalls.length ? `. ${toolCallsText(message)}` : ''}`;
}

/**
 * The newest messages whose lines fit the budget, oldest first: at least the newest one, and a
 * waiting question even when older messages around it no longer fit.
 */
function withinBudget(visible: ChatMessage[]): ShownMessage[] {
  const kept: ShownMessage[] = [];
  let used = 0;
  let full = false;
  for (let i = visible.length - 1; i >= 0; i--) {
    const probe = shownMessage(visible[i]!, CONTENT_CHARS);
    const message = probe.waiting ? shownMessage(visible[i]!, QUESTION_CHARS) : probe;
    const cost = approxTokens(lineOf(message));
    full ||= kept.length > 0 && used + cost > LINES_BUDGET;
    if (full && !message.waiting) continue;
    kept.unshift(message);
    used += cost;
  }
  return kept;
}
