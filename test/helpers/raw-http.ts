/**
 * A minimal HTTP/1.1 keep-alive client for the bench's fixed-rate sender
 * (bench/harness/load-generator.ts `paced`); test/bench/raw-http.test.ts checks its framing.
 *
 * Node's http.request cost the sender ~0.1 ms of CPU per request: at the latency figures' rates
 * (5,000 req/s and more) half a core of the two the server shares, and every pause of the sender's
 * own event loop lands in the latencies it measures. This writes each request as one prepared
 * buffer on a free socket and reads back only the status line, the framing headers and the body's
 * length, which is all a latency measurement needs.
 *
 * One request per socket at a time (no pipelining); requests wait in order for a free socket, up
 * to `maxSockets`. Responses must be framed by Content-Length or chunked encoding, as Fastify's
 * are; a socket the server closes is replaced by the next request that needs one.
 */
import net from 'node:net';

/** One request as the pool writes it (bench scenarios' RequestSpec has this shape). */
export interface RequestSpec {
  method: string;
  /** Path and query, starting with `/`. */
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Pending {
  bytes: Buffer;
  resolve: (status: number) => void;
  reject: (error: Error) => void;
}

const HEADER_END = Buffer.from('\r\n\r\n');

/**
 * Where a complete response ends in `buffer`, its status, and whether the server closes the
 * connection after it; undefined while incomplete.
 */
export function parseResponse(buffer: Buffer): { status: number; end: number; close: boolean } | undefined {
  const headerEnd = buffer.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = buffer.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headerEnd + 4;
  const close = /\r\nconnection:\s*close/i.test(head);
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return buffer.length >= end ? { status, end, close } : undefined;
  }
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const end = chunkedEnd(buffer, bodyStart);
    return end === undefined ? undefined : { status, end, close };
  }
  // No body framing: only bodiless answers (204, 304) are expected here.
  if (status === 204 || status === 304) return { status, end: bodyStart, close };
  throw new Error(`response without Content-Length or chunked encoding (status ${status})`);
}

/** The end of a chunked body starting at `offset`, or undefined while incomplete. */
function chunkedEnd(buffer: Buffer, offset: number): number | undefined {
  let at = offset;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at, 'latin1');
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    if (Number.isNaN(size)) throw new Error('malformed chunk size');
    if (size === 0) {
      const trailerEnd = buffer.indexOf(HEADER_END, lineEnd);
      return trailerEnd < 0 ? undefined : trailerEnd + 4;
    }
    at = lineEnd + 2 + size + 2;
    if (buffer.length < at) return undefined;
  }
}

/** The request as the bytes sent on the wire. */
export function requestBytes(host: string, spec: RequestSpec): Buffer {
  const body = spec.body === undefined ? undefined : Buffer.from(spec.body);
  let head = `${spec.method} ${spec.path} HTTP/1.1\r\nhost: ${host}\r\n`;
  for (const [name, value] of Object.entries(spec.headers ?? {})) head += `${name}: ${value}\r\n`;
  if (body) head += `content-length: ${body.length}\r\n`;
  head += '\r\n';
  return body ? Buffer.concat([Buffer.from(head, 'latin1'), body]) : Buffer.from(head, 'latin1');
}

class Connection {
  private readonly socket: net.Socket;
  private received: Buffer = Buffer.alloc(0);
  private current: Pending | undefined;
  closed = false;

  constructor(
    host: string,
    port: number,
    private readonly onFree: (connection: Connection) => void,
  ) {
    this.socket = net.connect({ host, port, noDelay: true });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    this.socket.on('error', (error) => this.fail(error));
    this.socket.on('close', () => this.fail(new Error('connection closed')));
  }

  get busy(): boolean {
    return this.current !== undefined;
  }

  send(pending: Pending): void {
    this.current = pending;
    this.socket.write(pending.bytes);
  }

  destroy(): void {
    this.closed = true;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    let parsed: ReturnType<typeof parseResponse>;
    try {
      parsed = parseResponse(this.received);
    } catch (error) {
      this.fail(error as Error);
      return;
    }
    if (!parsed || !this.current) return;
    const done = this.current;
    this.received = this.received.subarray(parsed.end);
    this.current = undefined;
    // Closed before it is handed out again: the next request must not race the server's close.
    if (parsed.close) this.destroy();
    done.resolve(parsed.status);
    this.onFree(this);
  }

  private fail(error: Error): void {
    const failed = this.current;
    this.current = undefined;
    if (!this.closed) this.destroy();
    failed?.reject(error);
    this.onFree(this);
  }
}

export class RawHttpPool {
  private readonly connections = new Set<Connection>();
  private readonly idle: Connection[] = [];
  private readonly waiting: Pending[] = [];

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly maxSockets: number,
  ) {}

  /** Sends the request's bytes; answers the response's status once its last byte arrived. */
  request(bytes: Buffer): Promise<number> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ bytes, resolve, reject });
      this.dispatch();
    });
  }

  destroy(): void {
    for (const connection of this.connections) connection.destroy();
    this.connections.clear();
    for (const pending of this.waiting.splice(0)) pending.reject(new Error('pool destroyed'));
  }

  private dispatch(): void {
    while (this.waiting.length > 0) {
      const connection = this.freeConnection();
      if (!connection) return;
      connection.send(this.waiting.shift()!);
    }
  }

  private freeConnection(): Connection | undefined {
    for (let idle = this.idle.pop(); idle; idle = this.idle.pop()) if (!idle.closed) return idle;
    if (this.connections.size >= this.maxSockets) return undefined;
    const connection = new Connection(this.host, this.port, (freed) => this.onFree(freed));
    this.connections.add(connection);
    return connection;
  }

  private onFree(connection: Connection): void {
    if (connection.closed) this.connections.delete(connection);
    else if (!connection.busy) this.idle.push(connection);
    this.dispatch();
  }
}
