import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A JSON-RPC proxy in front of the test node, between Rampart and the chain: it forwards, or
 * plays a broken node (down, errors, garbage), and lets a test act at the exact moment Rampart
 * asks something (kill the worker before a broadcast reaches the node, or right after).
 */
export type ProxyMode = 'forward' | 'down' | 'error' | 'garbage';

export interface RpcCall {
  method: string;
  params: unknown[];
}

export interface RpcProxy {
  url: string;
  mode: ProxyMode;
  /** Every call seen, in order (batched calls one by one). */
  calls: RpcCall[];
  /** HTTP requests seen (a JSON-RPC batch is one). */
  requests: number;
  /** Runs before a call is forwarded; may stop it (the caller then gets no answer). */
  before: ((call: RpcCall) => 'forward' | 'hang') | undefined;
  /** Runs once the node answered, before the answer goes back. */
  after: ((call: RpcCall, result: unknown) => void) | undefined;
  close(): Promise<void>;
}

export async function startRpcProxy(target: string): Promise<RpcProxy> {
  const sockets = new Set<import('node:net').Socket>();
  const proxy: RpcProxy = {
    url: '',
    mode: 'forward',
    calls: [],
    requests: 0,
    before: undefined,
    after: undefined,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const server = http.createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString();
    proxy.requests++;
    const parsed = JSON.parse(body) as
      | { id: unknown; method: string; params?: unknown[] }
      | { id: unknown; method: string; params?: unknown[] }[];
    const calls = (Array.isArray(parsed) ? parsed : [parsed]).map((call) => ({
      id: call.id,
      method: call.method,
      params: call.params ?? [],
    }));
    for (const call of calls) proxy.calls.push({ method: call.method, params: call.params });
    if (proxy.mode === 'down') {
      request.socket.destroy();
      return;
    }
    if (proxy.mode === 'garbage') {
      response.writeHead(200, { 'content-type': 'application/json' }).end('<html>not json');
      return;
    }
    if (proxy.mode === 'error') {
      const errors = calls.map((call) => ({
        jsonrpc: '2.0',
        id: call.id,
        error: { code: -32603, message: 'internal error' },
      }));
      response
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify(Array.isArray(parsed) ? errors : errors[0]));
      return;
    }
    for (const call of calls) {
      if (proxy.before?.({ method: call.method, params: call.params }) === 'hang') return;
    }
    const answer = await fetch(target, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    const text = await answer.text();
    if (proxy.after) {
      const results = JSON.parse(text) as { result?: unknown } | { result?: unknown }[];
      const list = Array.isArray(results) ? results : [results];
      for (const [index, call] of calls.entries()) {
        proxy.after({ method: call.method, params: call.params }, list[index]?.result);
      }
    }
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}
