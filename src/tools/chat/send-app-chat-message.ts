import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ChatTurn } from '../../api/schemas.js';
import type { Config } from '../../config.js';
import { duration, idText, quote, sanitize, sentText } from '../../text.js';
import { defineTool, type ToolResult, type Warning } from '../define.js';
import { appId, text } from '../fields.js';
import { nextCall, stepTo, type Steps } from '../format.js';
import { withProgress } from '../progress.js';
import { newestReply, toolCallsText } from './messages.js';
import { nextAfterTurn } from './turn-next.js';

/** A message to a builder, not a document: long enough for a detailed request, small enough to confirm. */
export const MAX_CONTENT_CHARS = 8_000;
/** Characters of the message the warning quotes; its full length is shown too. */
const WARNING_QUOTE_CHARS = 600;
/** Characters of the builder's reply shown: keeps the result well under 2,000 tokens. */
const REPLY_CHARS = 1_500;
/** Messages the warning's read asks for: it only proves the token and the app, so the fewest the service allows. */
const PROOF_READ_MESSAGES = 1;
/** What a person may expect of a turn and no operation offers (issue 29). */
const NO_ROLLBACK = 'No tool rolls a builder turn back: undoing its changes takes another turn (more credits) or the service itself.';

export const sendAppChatMessage = defineTool({
  name: 'send_app_chat_message',
  title: 'Send App Chat Message',
  description:
    "One turn of the app's AI builder: consumes credits, can change the app, can take minutes. Returns the reply (or that it was queued) and flags questions the AI waits on.",
  input: {
    app_id: appId,
    content: text(MAX_CONTENT_CHARS).transform((value) => value.trim()).refine((value) => value.length > 0, 'must not be blank').describe('The message, in the user\'s words.'),
  },
  output: {
    queued: z.boolean().describe('true: the builder was busy; the message waits in its queue, no reply yet.'),
    state: z.string().optional().describe('completed or processing'),
    reply: z.string().optional().describe("The builder's newest reply, trimmed; empty when the turn worked through tool calls."),
    tool_calls: z.array(z.strictObject({ name: z.string(), status: z.string() })).optional().describe("The reply's tool calls."),
    waiting_for_input: z.boolean().describe('true: the AI asked a question and cannot continue until it is answered.'),
  },
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  cost: 'credits',
  gate: {
    warn: async ({ app_id, content }, { api, config, signal }) => {
      // The cheapest read of a chat endpoint proves the token and the app before the gate remembers
      // anything (issue 16): an unknown app is a 404 now, not a credit warning and a 404 after confirm.
      await api.readAppConversation(app_id, PROOF_READ_MESSAGES, { signal });
      return warningOf(app_id, content, config);
    },
    unknownOutcome:
      'The builder turn may still run, change the app and use credits. Read the conversation with read_app_conversation to see whether the message arrived before sending it again.',
    requestId: true,
    done: ({ structured, isError }) =>
      isError ? 'the message reached the service; its builder turn failed or did not run' : structured?.queued === true ? 'the message was queued for the builder' : `the builder turn ran (state ${String(structured?.state ?? 'not given')})`,
  },
  statusHints: {
    400: 'The service refused the message; no builder turn ran. Fix what it says, then start over with a new warning.',
    401: 'The credential is missing, invalid or expired: set APPMGMT_ACCESS_TOKEN to a valid personal access token.',
    403: "The credential may not chat with this app's builder: it needs editor access, and workspace API keys are refused by chat endpoints.",
    404: "App not found (or not in the credential's workspace): no builder turn ran and no credits were used. No operation lists apps: the app id comes from the user.",
    422: 'The message was rejected as invalid (for example empty or too long); nothing ran.',
    429: "Rate limit, or the builder's queue is full (7 waiting messages): nothing was queued. Wait a few minutes, then start over with a new warning.",
  },
  async run({ app_id, content }, ctx) {
    // The gate sets requestId on every confirmed call; a fresh one keeps any other caller safe too.
    const requestId = ctx.requestId ?? randomUUID();
    const turn = await withProgress(ctx, 'Builder turn', () => ctx.api.sendAppChatMessage(app_id, content, requestId, { signal: ctx.signal }));
    return describeTurn(ctx, app_id, content, turn);
  },
});

/** What one builder turn will do and cost. */
function warningOf(app_id: string, content: string, config: Pick<Config, 'resolveTimeoutMs'>): Warning {
  const message = sentText(content, WARNING_QUOTE_CHARS);
  return {
    action: `Send a message to the AI builder of app ${idText(app_id)} (one builder turn)`,
    cost: 'the credits of one builder turn, used later if a busy builder queues it; the turn can change the app.',
    details: [
      `Message (${content.length} characters${message.whole ? ', exactly as sent' : `; the first ${WARNING_QUOTE_CHARS} shown, all sent`}): ${message.text}`,
      NO_ROLLBACK,
      'If the confirmed call is repeated within 10 minutes, the service runs the message at most once.',
      `It can take minutes: this server waits up to ${duration(config.resolveTimeoutMs)} and sends progress meanwhile.`,
      'If the builder is busy, the message is queued (up to 7) and runs later, using credits then.',
    ],
  };
}

function describeTurn(ctx: Steps, app_id: string, content: string, turn: ChatTurn): ToolResult {
  const app = `app ${idText(app_id)}${turn.name ? ` (${quote(turn.name, 80)})` : ''}`;
  const read = (say: (call: string) => string) => stepTo(ctx, 'read_app_conversation', { app_id }, say);
  if (turn.queued) {
    return {
      text: `QUEUED, no reply yet: the builder of ${app} was busy, so the message waits in its queue (up to 7 messages) and runs when the builder is free, using credits then.`,
      next: `Do not send the message again. ${read((call) => `Call ${call} in a few minutes to read the reply.`)}`,
      structured: { queued: true, waiting_for_input: false },
    };
  }
  const state = sanitize(turn.status?.state ?? 'unknown', 40);
  const reply = newestReply(turn.conversation?.messages ?? [], REPLY_CHARS);
  if (state === 'paywall') {
    return {
      isError: true,
      text: `NOT RUN: the workspace of ${app} is out of credits (paywall); no work was done.`,
      next: 'Add credits in the service, then send the message again (a new warning).',
    };
  }
  if (state === 'error') {
    const source = turn.status?.error_source ? ` (error_source ${quote(turn.status.error_source, 60)})` : '';
    return {
      isError: true,
      text: `The builder turn on ${app} FAILED: status error${source}. Credits may have been used.${reply ? `\nLast reply: ${quote(reply.content, 300)}` : ''}`,
      next: `${read((call) => `Read what happened with ${call} before sending again.`)} A new message needs a new warning and consumes credits.`,
    };
  }
  const lines = [state === 'processing' ? `The builder of ${app} is still working on the message (processing).` : `Builder turn on ${app} ${state === 'completed' ? 'completed' : `ended with state ${quote(state, 40)}`}.`];
  if (!reply) lines.push('No reply from the builder was found in the answer.');
  else if (reply.content) lines.push(`Reply: ${quote(reply.content, REPLY_CHARS)}`);
  else lines.push('Reply: no text; the turn was carried by tool calls (work done, not an error).');
  if (reply?.toolCalls.length) lines.push(toolCallsText(reply));
  const waiting = reply?.waiting === true;
  if (waiting) lines.push('WAITING FOR AN ANSWER: the AI asked a question and cannot continue until the user answers it.');
  const next = waiting
    ? `Show the question to the user and send their answer with ${nextCall(ctx.config, 'send_app_chat_message', { app_id, content: "<the user's answer>" })}.`
    : state === 'processing' || !reply
      ? read((call) => `Call ${call} in a few minutes to read the reply.`)
      : nextAfterTurn(ctx, app_id, content, turn.conversation?.messages ?? []);
  return {
    text: lines.join('\n'),
    next,
    structured: {
      queued: false,
      state,
      ...(reply ? { reply: reply.content, tool_calls: reply.toolCalls } : {}),
      waiting_for_input: waiting,
    },
  };
}
