import { appView, builderBusy, CHAT_QUEUE_MAX, rememberRequest, repeatedRequest, runQueued, runTurn } from '../chat.js';
import { fail, invalid, isResponse, objectBody, ok } from '../respond.js';
import type { Route } from '../router.js';
import { guardApp } from './guard.js';

/** Our choice: the service's own bound on one message is not documented. */
const MAX_CONTENT_CHARS = 20_000;
/** Documented: up to 64 letters, digits and hyphens. */
const REQUEST_ID = /^[A-Za-z0-9-]{1,64}$/;
/** Our choice: a conversation read answers at most this many messages. */
const MAX_LIMIT = 1_000;
const DEFAULT_LIMIT = 50;

/**
 * Send chat message (service facts, "Builder chat"): one builder turn, answered once it settles
 * (the sandbox clock moves on by the turn's length), or `{"queued": true}` while the builder is busy.
 */
export const sendChatMessage: Route = {
  method: 'POST',
  path: '/api/apps/:app_id/chat/message',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token', 'editor');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const body = objectBody(req.body);
    if (isResponse(body)) return body;
    const content = body.content;
    if (typeof content !== 'string' || !content.trim() || content.length > MAX_CONTENT_CHARS) {
      return invalid({ loc: ['body', 'content'], msg: `content must be 1 to ${MAX_CONTENT_CHARS} characters`, type: 'value_error' });
    }
    const requestId = req.headers['x-request-id'];
    if (requestId !== undefined && !REQUEST_ID.test(requestId)) {
      return invalid({ loc: ['header', 'X-Request-ID'], msg: 'up to 64 letters, digits and hyphens', type: 'value_error' });
    }
    runQueued(state, app, workspace);
    // A repeat is answered with the app's current state, without running or charging again.
    if (requestId && repeatedRequest(state, app, requestId)) return ok(appView(app, builderBusy(state, app) ? 'processing' : 'completed'));
    if (builderBusy(state, app)) {
      if (app.chat.queue.length >= CHAT_QUEUE_MAX) {
        return fail(429, `The builder is busy and its queue is full (${CHAT_QUEUE_MAX} messages). Try again when a turn has finished.`);
      }
      if (requestId) rememberRequest(state, app, requestId);
      app.chat.queue.push({ content });
      return ok({ queued: true, queue_position: app.chat.queue.length });
    }
    if (requestId) rememberRequest(state, app, requestId);
    const turn = runTurn(state, app, workspace, content);
    if (turn !== 'paywall') state.clock.advance(app.chat.turn_ms);
    return ok(appView(app, turn));
  },
};

/** Read conversation: oldest first; `limit` counts back from the newest, after skipping the newest `skip`. */
export const readConversation: Route = {
  method: 'GET',
  path: '/api/apps/:app_id/chat/full-conversation',
  handle(context) {
    const { state, req } = context;
    const guarded = guardApp(context, 'token', 'viewer');
    if (isResponse(guarded)) return guarded;
    const { app, workspace } = guarded;
    const limit = count(req.query.get('limit'), DEFAULT_LIMIT, 1, MAX_LIMIT);
    if (limit === undefined) return invalid({ loc: ['query', 'limit'], msg: `an integer from 1 to ${MAX_LIMIT}`, type: 'int_parsing' });
    const skip = count(req.query.get('skip'), 0, 0, Number.MAX_SAFE_INTEGER);
    if (skip === undefined) return invalid({ loc: ['query', 'skip'], msg: 'a non-negative integer', type: 'int_parsing' });
    runQueued(state, app, workspace);
    const messages = app.chat.messages;
    const end = Math.max(0, messages.length - skip);
    return ok({ messages: structuredClone(messages.slice(Math.max(0, end - limit), end)) });
  },
};

/** A query integer within bounds, the default when absent, undefined when invalid. */
function count(raw: string | null, fallback: number, min: number, max: number): number | undefined {
  if (raw === null) return fallback;
  if (!/^\d+$/.test(raw)) return undefined;
  const value = Number(raw);
  return value >= min && value <= max ? value : undefined;
}
