import { z } from 'zod';
import { RefusedError } from '../errors.js';
import { duration } from '../text.js';

/**
 * How one request's client can show a person an approval form:
 * - `none`: it cannot: no elicitation capability, or (`sessionless`) a 2025-era client over
 *   stateless HTTP, which the server has no way to send a form to;
 * - `inline`: a 2025-era session; the server pushes the form and waits for the answer;
 * - `rounds`: protocol 2026-07-28; the server answers `input_required` with the form and a signed
 *   state, and the client retries the call with the answer and the state (`retry`).
 */
export type ApprovalChannel =
  | { kind: 'none'; sessionless?: boolean }
  | { kind: 'inline'; showForm(message: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<FormAnswer> }
  | { kind: 'rounds'; retry?: { state: unknown; answer: FormAnswer | undefined } };

export interface FormAnswer {
  action: string;
  content?: Record<string, unknown>;
}

export const APPROVAL_FORM = {
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Approve', description: 'Check to go ahead.' } },
  required: ['approve'],
};

type Check = { valid: true; data: unknown; errorMessage: undefined } | { valid: false; data: undefined; errorMessage: string };

/**
 * What the SDK checks a 2025-era form answer with before handing it over: the only form this server
 * sends is APPROVAL_FORM, a flat object of primitive fields, so the check is exactly that shape's
 * (an object, its required fields present, each field of its declared type). A general JSON Schema
 * validator (Ajv, a fifth of the bundle) would cost start-up time on every run for this one form;
 * judgeAnswer then decides what the answer means.
 */
export const formAnswerValidator = {
  getValidator:
    (schema: { properties?: Record<string, { type?: unknown }>; required?: readonly string[] }) =>
    (input: unknown): Check => {
      if (typeof input !== 'object' || input === null || Array.isArray(input)) return { valid: false, data: undefined, errorMessage: 'the answer is not an object' };
      const answer = input as Record<string, unknown>;
      const missing = (schema.required ?? []).find((name) => !(name in answer));
      if (missing) return { valid: false, data: undefined, errorMessage: `${missing} is missing` };
      for (const [name, field] of Object.entries(schema.properties ?? {})) {
        const type = field.type;
        const value = answer[name];
        const ok = value === undefined || type === undefined || (type === 'integer' ? Number.isInteger(value) : typeof value === type);
        if (!ok) return { valid: false, data: undefined, errorMessage: `${name} must be ${/^[aeiou]/.test(String(type)) ? 'an' : 'a'} ${String(type)}` };
      }
      return { valid: true, data: input, errorMessage: undefined };
    },
};

/** What a round-trip approval carries through the client, signed by the server (never secret: the client can read it). */
export const approvalStateSchema = z.strictObject({
  /** The call's gate key: a hash of the caller's scope, the tool and the canonical arguments. */
  key: z.string().regex(/^[0-9a-f]{64}$/),
  /** Single use: claimed once in the gate store when the answer comes back. */
  nonce: z.string().min(16).max(64),
  /** When the form was sent, by the server's clock. */
  at: z.number().int().nonnegative(),
});
export type ApprovalState = z.infer<typeof approvalStateSchema>;

/** A gated call that must first show the person a form; the server turns it into an `input_required` result. */
export interface AskApproval {
  ask: { message: string; state: ApprovalState };
}

/** Only an answer of exactly `{approve: true}` approves. @throws RefusedError saying nothing was sent. */
export function judgeAnswer(answer: FormAnswer | undefined): void {
  const content = answer?.content ?? {};
  if (answer?.action === 'accept' && Object.keys(content).length === 1 && content.approve === true) return;
  const how =
    answer?.action === 'accept' ? 'not approved' : answer?.action === 'cancel' ? 'cancelled' : answer?.action === 'decline' ? 'declined' : 'no clear answer';
  throw new RefusedError(`The user did not approve (${how}). Nothing was sent.`);
}

export function unansweredError(timeoutMs: number): RefusedError {
  return new RefusedError(
    `Nobody answered the approval form within ${duration(timeoutMs)} (APPMGMT_APPROVAL_TIMEOUT_MS). Nothing was sent; call again without confirm to start over.`,
  );
}

/**
 * Shows a 2025-era client the form with `message` (the exact amount or credits) and waits.
 * @throws RefusedError saying that nothing was sent: declined, cancelled, unanswered within
 * `timeoutMs`, or anything other than a clear approval.
 */
export async function askInline(
  channel: Extract<ApprovalChannel, { kind: 'inline' }>,
  message: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<void> {
  let answer: FormAnswer;
  try {
    answer = await channel.showForm(message, { signal, timeoutMs });
  } catch (error) {
    if (signal.aborted) throw new RefusedError('The call was cancelled while waiting for approval. Nothing was sent.');
    if (/time(d)? ?out/i.test(error instanceof Error ? error.message : String(error))) throw unansweredError(timeoutMs);
    throw new RefusedError('The approval form got no valid answer. Nothing was sent; call again without confirm to start over.');
  }
  judgeAnswer(answer);
}

/**
 * Checks a round-trip approval's returned state against the call it claims to approve.
 * @throws RefusedError (nothing was sent) for another call's state or a late answer.
 */
export function checkState(state: unknown, key: string, now: number, timeoutMs: number): ApprovalState {
  const parsed = approvalStateSchema.safeParse(state);
  if (!parsed.success || parsed.data.key !== key) {
    throw new RefusedError('This approval belongs to another call (other arguments or another user). Nothing was sent; call again without confirm to start over.');
  }
  if (now - parsed.data.at > timeoutMs) throw unansweredError(timeoutMs);
  return parsed.data;
}
