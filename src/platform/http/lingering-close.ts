import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';

/** How much of an unread body is read and dropped after an early answer, and for how long. */
export interface LingerBounds {
  /** Body bytes dropped at most; a client sending more is cut off. */
  maxBytes: number;
  /** The whole drain, however steadily the client sends. */
  maxMs: number;
  /** Silence allowed between two pieces of the body. */
  idleMs: number;
}

/**
 * Four times the document upload limit, so an ordinary oversized file is read to its end and its
 * sender gets the answer; the times are those nginx uses for its lingering close.
 */
export const LINGER_BOUNDS: LingerBounds = { maxBytes: 32 * 1024 * 1024, maxMs: 30_000, idleMs: 5_000 };

/**
 * Closes the connection of a request answered before its body was read (413, or any answer with
 * `Connection: close`) in stages, as RFC 9112 section 9.6 asks: the answer is sent and the write
 * side half-closed, the rest of the body is read and dropped, and only then is the socket closed.
 * Node closes it as soon as the answer is written; the client is still sending, and the kernel
 * answers bytes that reach a closed socket with a reset, which the client sees as EPIPE or
 * ECONNRESET, often without ever reading the answer waiting in its buffer.
 *
 * The drain is bounded in bytes and time (`bounds`), so a client cannot hold the socket open by
 * sending forever or not at all. Returns the socket, which the caller may destroy at shutdown.
 */
export function lingerUntilBodyRead(request: IncomingMessage, bounds: LingerBounds = LINGER_BOUNDS): Socket {
  const socket = request.socket;
  let answered = false;
  let bodyDone = false;
  let closing = false;
  let dropped = 0;
  const cut = () => socket.destroy();
  const deadline = setTimeout(cut, bounds.maxMs);
  const idle = setTimeout(cut, bounds.idleMs);
  const closeWhenBoth = () => {
    if (!answered || !bodyDone || closing) return;
    closing = true;
    // Node's own close: ends the write side once the answer is flushed, then destroys.
    Object.getPrototypeOf(socket).destroySoon.call(socket);
  };
  // A listener of our own keeps Node from "dumping" the body, which would emit nothing to count.
  request.on('data', (chunk: Buffer) => {
    dropped += chunk.length;
    if (dropped > bounds.maxBytes) cut();
    else idle.refresh();
  });
  const finishBody = () => {
    bodyDone = true;
    closeWhenBoth();
  };
  request.once('end', finishBody);
  // The client half-closed or gave up: nothing more is coming.
  socket.once('end', finishBody);
  // Node calls this once the answer is written and the connection is not to be kept.
  socket.destroySoon = () => {
    answered = true;
    if (socket.writable) socket.end();
    closeWhenBoth();
  };
  socket.once('close', () => {
    clearTimeout(deadline);
    clearTimeout(idle);
  });
  return socket;
}
