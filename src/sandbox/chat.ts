import type { State } from './state.js';
import { applyTurn } from './turn-effects.js';
import type { App, Workspace } from './world.js';
import type { ChatMessageRecord } from './world-schema-chat.js';

/** The builder chat of the simulation: turns, the queue of a busy builder, questions that wait for an answer. */

/** Service facts: a busy builder queues up to 7 messages. */
export const CHAT_QUEUE_MAX = 7;
/** Service facts: the service remembers an X-Request-ID for 10 minutes. */
export const REQUEST_ID_MEMORY_MS = 10 * 60_000;
/** The tool-call status of a question the AI cannot continue without (documented). */
export const WAITING = 'waiting_for_user_input';
/** Our choice for a tool call that ran or was answered. */
const DONE = 'completed';

export type TurnState = 'completed' | 'error' | 'paywall' | 'processing';

/** A builder turn holds the app: chat messages queue and pulls answer sync_in_progress. */
export function builderBusy(state: State, app: App): boolean {
  return state.clock.now() < state.startedAt + app.chat.busy_until_ms;
}

function say(state: State, app: App, role: 'user' | 'assistant', content: string, calls: string[] = [], status = DONE): ChatMessageRecord {
  const message: ChatMessageRecord = {
    id: state.ids.next('msg'),
    role,
    content,
    hidden: false,
    tool_calls: calls.map((name) => ({ id: state.ids.next('call'), name, status })),
  };
  app.chat.messages.push(message);
  return message;
}

const waitingCalls = (app: App) => app.chat.messages.flatMap((message) => message.tool_calls.filter((call) => call.status === WAITING));

/** 4.6 needs_input: the resolution's question waits in the chat (asked once while it is unanswered). */
export function askConflictQuestion(state: State, app: App): void {
  if (waitingCalls(app).length > 0) return;
  say(state, app, 'assistant', app.repository.conflict_question, ['ask_user'], WAITING);
}

/** 4.6 conflict: the chat carries a fresh conflict card. */
export function postConflictCard(state: State, app: App): void {
  const files = app.repository.conflicted_files;
  const list = files.length ? `: ${files.join(', ')}` : '';
  say(state, app, 'assistant', `Merge conflicts remain in ${files.length} file${files.length === 1 ? '' : 's'}${list}. Tell me how to combine them, or resolve them by hand.`, ['merge_conflict_card']);
}

/**
 * One builder turn for a user message. Out of credits: `paywall`, nothing recorded. Otherwise the
 * turn uses credits; a message sent while a question waits answers it, and an answered conflict
 * question lets the next pull complete the merge (or the next resolution resolve it).
 */
export function runTurn(state: State, app: App, workspace: Workspace, content: string): TurnState {
  if (workspace.credits < workspace.credits_per_ai_turn) return 'paywall';
  workspace.credits -= workspace.credits_per_ai_turn;
  say(state, app, 'user', content);
  if (app.chat.turn_error_source) return 'error';
  const waiting = waitingCalls(app);
  if (waiting.length === 0) {
    const effect = applyTurn(state, app, workspace, content);
    say(state, app, 'assistant', effect.reply, effect.calls);
    return 'completed';
  }
  for (const call of waiting) call.status = DONE;
  if (app.repository.merge_conflicts) {
    app.repository.conflict_question_answered = true;
    say(state, app, 'assistant', "Thanks, I'll merge it that way. Pull the repository changes again to finish the merge.", ['record_answer']);
  } else {
    say(state, app, 'assistant', 'Thanks, continuing with that.', ['edit_files']);
  }
  return 'completed';
}

/** Messages queued while the builder was busy run, in order, once it is free (as long as credits last). */
export function runQueued(state: State, app: App, workspace: Workspace): void {
  while (!builderBusy(state, app) && app.chat.queue.length > 0 && workspace.credits >= workspace.credits_per_ai_turn) {
    runTurn(state, app, workspace, app.chat.queue.shift()!.content);
  }
}

/** An X-Request-ID acted on in the last 10 minutes (older ones are forgotten). */
export function repeatedRequest(state: State, app: App, requestId: string): boolean {
  const now = state.clock.now() - state.startedAt;
  app.chat.request_ids = app.chat.request_ids.filter((seen) => now - seen.at_ms < REQUEST_ID_MEMORY_MS);
  return app.chat.request_ids.some((seen) => seen.id === requestId);
}

/** The service acts only on the first request with a value: remember it once acted on. */
export function rememberRequest(state: State, app: App, requestId: string): void {
  app.chat.request_ids.push({ id: requestId, at_ms: Math.max(0, state.clock.now() - state.startedAt) });
}

/** The app as a chat answer shows it once a turn settles. */
export function appView(app: App, turn: TurnState) {
  return {
    id: app.id,
    name: app.name,
    status: { state: turn, error_source: turn === 'error' ? (app.chat.turn_error_source ?? null) : null },
    conversation: { messages: structuredClone(app.chat.messages) },
  };
}
