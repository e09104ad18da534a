// An answer sent before its request body was read (413 for a declared length over the limit, an early refusal).
// Closing the connection at once, with the client's bytes still arriving, makes the kernel reset it, and a client
// still sending sees EPIPE or ECONNRESET instead of the answer. So, as proven servers do (nginx's lingering close),
// the rest of the body is read and dropped — up to LINGER_BYTES or for LINGER_MS, whichever comes first, then the
// connection is dropped — and the connection closes once the body has ended and the answer is written. The answer
// still says `Connection: close`.
import type { IncomingMessage } from 'node:http';

export const LINGER_BYTES = 64 * 1024 * 1024;
export const LINGER_MS = 10_000;

/** Read and drop the unread rest of `req`'s body (bounded), then close its connection. */
export function drainThenClose(req: IncomingMessage): void {
  const socket = req.socket;
  // Not a network socket (an injected request): nothing arrives late, nothing to hold.
  if (typeof socket?.destroySoon !== 'function') {
    req.resume();
    return;
  }
  let seen = 0;
  let waiting = 2;
  const done = () => {
    if (--waiting === 0) destroySoon();
  };
  // node ends a `Connection: close` answer's socket with destroySoon() as soon as the answer is written: held until
  // the body is drained.
  const destroySoon = socket.destroySoon.bind(socket);
  socket.destroySoon = () => done();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  req.on('data', (c: Buffer) => {
    seen += c.length;
    if (seen > LINGER_BYTES) socket.destroy();
  });
  req.once('end', () => {
    clearTimeout(timer);
    done();
  });
  req.resume();
}
