import { z } from 'zod';
import { CHAT_QUEUE_MAX } from './chat.js';

/** Zod schema of an app's builder chat in the sandbox world. Times are offsets from the moment the world starts. */

const Id = z.string().min(1);
const Ms = z.number().int().nonnegative();


export const ChatToolCallSchema = z.strictObject({
  id: Id,
  name: z.string().min(1),
  /** `waiting_for_user_input` (documented): the AI cannot continue until answered; others our choice (`completed`). */
  status: z.string().min(1),
});

export const ChatMessageSchema = z.strictObject({
  id: Id,
  role: z.enum(['user', 'assistant']),
  /** Empty when the turn was carried by tool calls. */
  content: z.string().default(''),
  /** Internal messages the service keeps in the conversation; readers skip them. */
  hidden: z.boolean().default(false),
  tool_calls: z.array(ChatToolCallSchema).default([]),
});

export const BuilderChatSchema = z
  .strictObject({
    messages: z.array(ChatMessageSchema).default([]),
    /** A builder turn holds the app until this offset: messages queue, pulls answer sync_in_progress. */
    busy_until_ms: Ms.default(0),
    /** Simulated length of one builder turn. */
    turn_ms: Ms.default(45_000),
    /** When set, every turn fails: `status.state` error with this `error_source` (the turn still uses credits). */
    turn_error_source: z.string().min(1).optional(),
    /** Messages waiting for the builder; they run in order once it is free. */
    queue: z.array(z.strictObject({ content: z.string() })).max(CHAT_QUEUE_MAX).default([]),
    /** X-Request-ID values already acted on, with when (remembered 10 minutes); normally empty in a world file. */
    request_ids: z.array(z.strictObject({ id: Id, at_ms: Ms })).default([]),
  })
  .prefault({});

export type ChatMessageRecord = z.output<typeof ChatMessageSchema>;
export type BuilderChat = z.output<typeof BuilderChatSchema>;
