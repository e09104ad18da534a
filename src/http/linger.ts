// An answer sent before its request body was read (413 for a declared length over the limit, an early refusal).
// Closing the connection at once, with the client's bytes still arriving, makes the kernel reset it, and a client
// still sending sees EPIPE or ECONNRESET instead of the answer. So, as proven servers do (nginx's lingering close),
// the rest of the body is read and dropped — up to LINGER_BYTES or for LINGER_MS, whichever comes first, then the
// connection is dropped — and the connection closes once the body has ended and the answer is written. The answer
// still says `Connection: close`.
//
// Only a body that keeps coming is waited for: one arriving slower than LINGER_MIN_BYTES_PER_S on average (a slow
// drip, often unauthenticated, or a client that stopped sending) is dropped at the next check, LINGER_CHECK_MS after
// the answer at the latest, so a refused request cannot hold a connection for the whole LINGER_MS.
import type { IncomingMessage } from 'node:http';

export const LINGER_BYTES = 64 * 1024 * 1024;
export const LINGER_MS = 10_000;
/** The pace the rest of a body must keep for the wait to go on: far below any real upload, far above a drip. */
export const LINGER_MIN_BYTES_PER_S = 8 * 1024;
export const LINGER_CHECK_MS = 1_000;

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
  const started = performance.now();
  const pace = setInterval(() => {
    if (seen < (LINGER_MIN_BYTES_PER_S * (performance.now() - started)) / 1000) socket.destroy();
  }, LINGER_CHECK_MS);
  pace.unref();
  const stop = () => {
    clearTimeout(timer);
    clearInterval(pace);
  };
  socket.once('close', stop);
  req.on('data', (c: Buffer) => {
    seen += c.length;
    if (seen > LINGER_BYTES) socket.destroy();
  });
  req.once('end', () => {
    stop();
    done();
  });
  req.resume();
}
