import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LINGER_BOUNDS } from '../../../src/platform/http/lingering-close.ts';
import { startTestApp, type TestApp } from '../../helpers/app.ts';
import { parseResponse, portOf, type RawResponse } from '../../helpers/http.ts';

/**
 * A body over the limit is answered 413 and the client can read that answer, whether it sends
 * fast or slowly: the server half-closes and keeps reading (dropping) what the client still
 * sends, instead of closing a socket with unread bytes, which makes the kernel answer with a
 * reset (the client sees EPIPE / ECONNRESET and often never the 413). Real sockets throughout.
 */

const UPLOAD_LIMIT = 8_126_464;
const BODY_LIMIT = 1_048_576;
const KIB = 1024;

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t?.close());

interface Exchange {
  /** Request bytes the client handed to its socket. */
  written: number;
  /** A write or read error (EPIPE, ECONNRESET), if any. */
  error: string | undefined;
  response: RawResponse | undefined;
}

/**
 * Sends the head, then every piece, like a plain HTTP client that reads the answer only once it
 * has sent the whole request: writes with backpressure and `pauseMs` between pieces, then a
 * half-close, then reading until the server closes.
 */
function sendWhole(head: string, pieces: Buffer[], pauseMs: number): Promise<Exchange> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: portOf(t.baseUrl), host: '127.0.0.1', allowHalfOpen: true });
    const received: Buffer[] = [];
    let written = 0;
    let error: string | undefined;
    socket.on('data', (data) => received.push(data));
    socket.on('error', (e: NodeJS.ErrnoException) => {
      error ??= e.code ?? e.message;
    });
    socket.on('close', () => resolve({ written, error, response: parseResponse(Buffer.concat(received)) }));
    socket.on('connect', async () => {
      socket.write(head);
      for (const piece of pieces) {
        if (socket.destroyed) return;
        const flushed = socket.write(piece);
        written += piece.length;
        if (!flushed) await drained(socket);
        if (pauseMs > 0) await sleep(pauseMs);
      }
      socket.end();
    });
  });
}

/** Until the socket takes more writes, or is gone. */
function drained(socket: net.Socket): Promise<void> {
  return new Promise((go) => {
    const done = () => {
      socket.off('drain', done);
      socket.off('close', done);
      go();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

function split(length: number, pieceSize: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < length; at += pieceSize)
    pieces.push(Buffer.alloc(Math.min(pieceSize, length - at), 7));
  return pieces;
}

/** The same bytes with chunked transfer-encoding framing, ending with the last chunk. */
function chunked(pieces: Buffer[]): Buffer[] {
  return [
    ...pieces.map((piece) =>
      Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]),
    ),
    Buffer.from('0\r\n\r\n'),
  ];
}

const total = (pieces: Buffer[]) => pieces.reduce((sum, piece) => sum + piece.length, 0);

const uploadHead = (framing: string) =>
  `POST /v3/users/US_AAAAAAAAAAAA/governmentIdFront?docType=PASSPORT HTTP/1.1\r\nHost: 127.0.0.1\r\n` +
  `Content-Type: application/pdf\r\n${framing}\r\n\r\n`;

const jsonHead = (framing: string) =>
  `POST /v3/transfers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`;

function expect413(exchange: Exchange, sent: number) {
  expect(exchange.error, 'the client saw its connection reset').toBeUndefined();
  expect(exchange.written).toBe(sent);
  expect(exchange.response?.status).toBe(413);
  expect(exchange.response?.headers.connection).toBe('close');
  expect(exchange.response?.json).toMatchObject({
    type: 'PayloadTooLargeException',
    errorCode: 'validation.payloadTooLarge',
  });
}

describe('a body over the limit is answered 413 and the client reads it', () => {
  it('a document upload with a Content-Length over 7.75 MiB, sent at full speed', async () => {
    const pieces = split(UPLOAD_LIMIT + 1024 * KIB, 256 * KIB);
    expect413(await sendWhole(uploadHead(`Content-Length: ${total(pieces)}`), pieces, 0), total(pieces));
  });

  it('the same upload sent slowly, in small pieces', async () => {
    const pieces = split(UPLOAD_LIMIT + 512 * KIB, 128 * KIB);
    expect413(await sendWhole(uploadHead(`Content-Length: ${total(pieces)}`), pieces, 5), total(pieces));
  });

  it('a chunked upload without Content-Length, refused once 7.75 MiB have been read', async () => {
    const pieces = chunked(split(UPLOAD_LIMIT + 1024 * KIB, 64 * KIB));
    expect413(await sendWhole(uploadHead('Transfer-Encoding: chunked'), pieces, 1), total(pieces));
  });

  it('a JSON body over the general limit (1 MiB), declared and sent at full speed', async () => {
    const pieces = split(4 * BODY_LIMIT, 64 * KIB);
    expect413(await sendWhole(jsonHead(`Content-Length: ${total(pieces)}`), pieces, 0), total(pieces));
  });

  it('a chunked JSON body over the general limit, sent slowly', async () => {
    const pieces = chunked(split(2 * BODY_LIMIT, 16 * KIB));
    expect413(await sendWhole(jsonHead('Transfer-Encoding: chunked'), pieces, 2), total(pieces));
  });
});

describe('the drain after a 413 is bounded', () => {
  it('a client that keeps sending past the byte bound is cut off', async () => {
    const pieces = split(LINGER_BOUNDS.maxBytes + 16 * 1024 * KIB, 256 * KIB);
    const exchange = await sendWhole(uploadHead(`Content-Length: ${total(pieces)}`), pieces, 0);
    expect(exchange.written).toBeLessThan(total(pieces));
  });

  it('a client that announces a large body and then sends nothing is let go', async () => {
    // No timing asserted: the server closes (after its idle bound), so this exchange ends.
    const exchange = await sendWhole(uploadHead(`Content-Length: ${UPLOAD_LIMIT + 1}`), [], 0);
    expect(exchange.response?.status).toBe(413);
  });
});
