import { AnswerTooLargeError } from '../errors.js';
import type { Answer } from './transport.js';

/** Reads an answer's body within a size limit, so a huge or compressed-bomb answer stops early. */

/**
 * The body as text, counting decoded bytes chunk by chunk (the transport has already undone gzip,
 * deflate or br), so reading stops as soon as the limit is passed and the event loop stays free
 * meanwhile.
 * @throws AnswerTooLargeError when Content-Length or the bytes read pass `limitBytes`; whatever the
 *   stream throws (an abort, a dropped connection).
 */
export async function readText(answer: Answer, limitBytes: number): Promise<string> {
  if (Number(answer.header('content-length')) > limitBytes) {
    answer.discard();
    throw new AnswerTooLargeError(limitBytes);
  }
  const parts: Uint8Array[] = [];
  let total = 0;
  await answer.read((chunk) => {
    total += chunk.byteLength;
    if (total > limitBytes) return false; // the answer is discarded there
    parts.push(chunk);
    return true;
  });
  if (total > limitBytes) throw new AnswerTooLargeError(limitBytes);
  // Decoded once at the end, as a TextDecoder would: bad bytes become U+FFFD and a leading byte order mark goes.
  const bytes = parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
