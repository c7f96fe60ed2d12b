import { AnswerTooLargeError } from '../errors.js';

/** Reads an answer's body within a size limit, so a huge or compressed-bomb answer stops early. */

/**
 * The body as text, counting decoded bytes chunk by chunk (fetch has already undone gzip or br),
 * so reading stops as soon as the limit is passed and the event loop stays free meanwhile.
 * @throws AnswerTooLargeError when Content-Length or the bytes read pass `limitBytes`; whatever the
 *   stream throws (an abort, a dropped connection).
 */
export async function readText(response: Response, limitBytes: number): Promise<string> {
  if (Number(response.headers.get('content-length')) > limitBytes) {
    discard(response);
    throw new AnswerTooLargeError(limitBytes);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      // Not awaited: cancelling a stream whose source is stalled may never settle.
      void reader.cancel().catch(() => undefined);
      throw new AnswerTooLargeError(limitBytes);
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/** Frees the connection of an answer whose body we will not read. */
export function discard(response: Response): void {
  void response.body?.cancel().catch(() => undefined);
}
