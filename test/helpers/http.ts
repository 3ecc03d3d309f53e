import net from 'node:net';
import { expect } from 'vitest';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** Parsed body when it is JSON, else undefined. */
  json: Record<string, unknown> | undefined;
}

export function portOf(baseUrl: string): number {
  return Number(new URL(baseUrl).port);
}

/** One HTTP/1.1 response from raw bytes, or undefined while incomplete. */
export function parseResponse(bytes: Buffer): RawResponse | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n');
  if (headEnd < 0) return undefined;
  const [statusLine = '', ...lines] = bytes.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(statusLine.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = bytes.subarray(headEnd + 4);
  if (headers['content-length'] !== undefined) {
    const length = Number(headers['content-length']);
    if (body.length < length) return undefined;
    body = body.subarray(0, length);
  } else if (headers['transfer-encoding'] === 'chunked') {
    const decoded: Buffer[] = [];
    let rest = body;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n');
      if (lineEnd < 0) return undefined;
      const size = Number.parseInt(rest.subarray(0, lineEnd).toString(), 16);
      if (size === 0) break;
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      decoded.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      rest = rest.subarray(lineEnd + 2 + size + 2);
    }
    body = Buffer.concat(decoded);
  } else {
    return undefined; // read until close
  }
  let json: Record<string, unknown> | undefined;
  try {
    json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
  } catch {
    json = undefined;
  }
  return { status, headers, body, json };
}

/**
 * Sends raw bytes over a fresh TCP connection and reads one HTTP response. The pieces are written
 * in order with backpressure; writing stops as soon as the server starts answering (a server
 * refusing a huge body answers early and closes), so the answer is never lost to a reset.
 */
export function rawRequest(port: number, pieces: Iterable<Buffer | string>): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const received: Buffer[] = [];
    let settled = false;
    const finish = (error?: Error) => {
      if (settled) return;
      const parsed = parseResponse(Buffer.concat(received));
      if (parsed) {
        settled = true;
        socket.destroy();
        resolve(parsed);
      } else if (error) {
        settled = true;
        socket.destroy();
        reject(error);
      }
    };
    socket.on('data', (chunk) => {
      received.push(chunk);
      finish();
    });
    socket.on('error', (error) => finish(error));
    socket.on('close', () =>
      finish(new Error(`connection closed after ${Buffer.concat(received).length} bytes`)),
    );
    socket.on('connect', async () => {
      for (const piece of pieces) {
        if (received.length > 0 || socket.destroyed) return;
        if (!socket.write(piece)) {
          await new Promise<void>((done) => {
            const go = () => {
              socket.off('drain', go);
              socket.off('close', go);
              socket.off('data', go);
              done();
            };
            socket.on('drain', go);
            socket.on('close', go);
            socket.on('data', go);
          });
        }
      }
    });
  });
}

export interface EnvelopeExpectations {
  errorCode?: string;
  problematicField?: string;
  transient?: boolean;
  production?: boolean;
}

/** The exact key set of the Wyre envelope (API.md, Errors), nothing Fastify-shaped, no stack. */
export function expectEnvelope(body: unknown, type: string, extra: EnvelopeExpectations = {}) {
  const envelope = body as Record<string, unknown>;
  const keys = Object.keys(envelope).sort();
  const expected = [
    'compositeType',
    'errorCode',
    'exceptionId',
    'language',
    'message',
    'subType',
    'transient',
    'type',
  ];
  if (extra.problematicField !== undefined || 'problematicField' in envelope)
    expected.push('problematicField');
  // A refused batch lists every refused item (docs/contract.md, decision 32).
  if (Array.isArray(envelope.errors) && envelope.errors.length > 0) expected.push('errors');
  expect(keys).toEqual(expected.sort());
  expect(envelope).toMatchObject({ language: 'en', compositeType: '', subType: '', type });
  // Sandbox support references carry `test_`; production ones are the six characters alone.
  expect(envelope.exceptionId).toMatch(extra.production ? /^[2-9A-HJ-NP-Z]{6}$/ : /^test_[2-9A-HJ-NP-Z]{6}$/);
  expect(typeof envelope.errorCode).toBe('string');
  expect(typeof envelope.message).toBe('string');
  expect(envelope.transient).toBe(extra.transient ?? false);
  if (extra.errorCode !== undefined) expect(envelope.errorCode).toBe(extra.errorCode);
  if (extra.problematicField !== undefined) expect(envelope.problematicField).toBe(extra.problematicField);
}

/** Reads a fetch response that must be an envelope of the given status and type. */
export async function expectEnvelopeResponse(
  response: Response,
  status: number,
  type: string,
  extra: EnvelopeExpectations = {},
): Promise<Record<string, unknown>> {
  const text = await response.text();
  expect({ status: response.status, text }).toMatchObject({ status });
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  const body = JSON.parse(text) as Record<string, unknown>;
  expectEnvelope(body, type, extra);
  return body;
}
