import { describe, expect, it } from 'vitest';
import { readText } from '../../src/api/read-body.js';
import type { Answer } from '../../src/api/transport.js';
import { AnswerTooLargeError } from '../../src/errors.js';

/** An answer whose body comes in the given chunks. */
function answerOf(chunks: Uint8Array[], headers: Record<string, string> = {}): Answer & { discarded: boolean } {
  const answer = {
    status: 200,
    discarded: false,
    header: (name: string) => headers[name],
    async read(take: (chunk: Uint8Array) => boolean) {
      for (const chunk of chunks) {
        await Promise.resolve(); // each chunk in a turn of its own, as a socket's come
        if (!take(chunk)) return void (answer.discarded = true);
      }
    },
    discard: () => void (answer.discarded = true),
  };
  return answer;
}

describe('readText', () => {
  it('decodes UTF-8 as a TextDecoder would, whatever the chunks: a character split between two, bad bytes, a byte order mark', async () => {
    const bytes = Buffer.concat([Buffer.from('\ufeff{"name":"Café ☕ 🎉"}', 'utf8'), Buffer.from([0xff, 0xc3]), Buffer.from(' ok')]);
    for (const size of [1, 2, 3, 7, bytes.length]) {
      const chunks: Uint8Array[] = [];
      for (let at = 0; at < bytes.length; at += size) chunks.push(new Uint8Array(bytes.subarray(at, at + size)));
      expect(await readText(answerOf(chunks), 1024)).toBe(new TextDecoder().decode(bytes));
    }
    expect(await readText(answerOf([]), 1024)).toBe('');
  });

  it('stops at the limit, by Content-Length or by the bytes read, and frees the connection', async () => {
    const declared = answerOf([Buffer.from('{}')], { 'content-length': '2048' });
    await expect(readText(declared, 1024)).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(declared.discarded).toBe(true);
    const streamed = answerOf([Buffer.alloc(600, 0x61), Buffer.alloc(600, 0x61)]);
    await expect(readText(streamed, 1024)).rejects.toBeInstanceOf(AnswerTooLargeError);
    expect(streamed.discarded).toBe(true);
  });
});
