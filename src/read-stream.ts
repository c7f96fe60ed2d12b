import type { Readable } from 'node:stream';

/**
 * A stream's chunks through its events, handed to `take` one by one. A stream's async iterator
 * costs an end-of-stream watcher and a promise per chunk, and the bodies read here (a request to
 * this server, an answer from the API) are one or two chunks (issue 31).
 * @returns true at the stream's end; false when `take` returned false, the stream then paused for
 *   its owner to destroy it or answer before reading on.
 * @throws the stream's error, or a premature close when it closed before its end without one.
 */
export function readStream(stream: Readable, take: (chunk: Buffer) => boolean): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const settle = (error: Error | undefined, whole: boolean) => {
      stream.off('data', data).off('end', end).off('error', failed).off('close', closed);
      if (error) reject(error);
      else resolve(whole);
    };
    const data = (chunk: Buffer) => {
      if (take(chunk)) return;
      stream.pause();
      settle(undefined, false);
    };
    const end = () => settle(undefined, true);
    const failed = (error: Error) => settle(error, false);
    const closed = () => settle(stream.readableEnded ? undefined : Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }), true);
    if (stream.destroyed) return closed();
    stream.on('data', data).once('end', end).once('error', failed).once('close', closed);
  });
}
