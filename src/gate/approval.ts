import { RefusedError } from '../errors.js';
import { duration } from '../text.js';

/** What the gate needs from the MCP server to ask a person: whether the client shows forms, and one form. */
export interface FormChannel {
  canShowForms(): boolean;
  /** Resolves with the client's answer; rejects on timeout, cancellation or a malformed answer. */
  showForm(message: string, options: { signal: AbortSignal; timeoutMs: number }): Promise<{ action: string; content?: Record<string, unknown> }>;
}

export const APPROVAL_FORM = {
  type: 'object' as const,
  properties: { approve: { type: 'boolean' as const, title: 'Approve', description: 'Check to go ahead.' } },
  required: ['approve'],
};

/**
 * Asks the person to approve one costly call in a client form showing `message` (the exact amount
 * or credits). Only an answer of exactly `{approve: true}` approves.
 * @throws RefusedError saying that nothing was sent: declined, cancelled, unanswered within
 * `timeoutMs`, or anything other than a clear approval.
 */
export async function askApproval(channel: FormChannel, message: string, signal: AbortSignal, timeoutMs: number): Promise<void> {
  let answer: { action: string; content?: Record<string, unknown> };
  try {
    answer = await channel.showForm(message, { signal, timeoutMs });
  } catch (error) {
    if (signal.aborted) throw new RefusedError('The call was cancelled while waiting for approval. Nothing was sent.');
    const timedOut = /time(d)? ?out/i.test(error instanceof Error ? error.message : String(error));
    throw new RefusedError(
      timedOut
        ? `Nobody answered the approval form within ${duration(timeoutMs)} (APPMGMT_APPROVAL_TIMEOUT_MS). Nothing was sent; call again without confirm to start over.`
        : 'The approval form got no valid answer. Nothing was sent; call again without confirm to start over.',
    );
  }
  const content = answer.content ?? {};
  const approved = answer.action === 'accept' && Object.keys(content).length === 1 && content.approve === true;
  if (!approved) {
    const how = answer.action === 'accept' ? 'not approved' : answer.action === 'cancel' ? 'cancelled' : answer.action === 'decline' ? 'declined' : 'no clear answer';
    throw new RefusedError(`The user did not approve (${how}). Nothing was sent.`);
  }
}
