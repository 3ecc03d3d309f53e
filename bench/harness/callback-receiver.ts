/**
 * The partner's callback endpoint for the mixed load: a local HTTP server answering 200 to every
 * POST and noting when each transfer's callback (`{"trigger":"transfer:TF_…"}`) arrived.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface CallbackReceiver {
  url: string;
  /** Transfer id → epoch ms of its first callback. */
  arrivals: Map<string, number>;
  /** Every POST, duplicates included. */
  received(): number;
  close(): Promise<void>;
}

export async function startCallbackReceiver(): Promise<CallbackReceiver> {
  const arrivals = new Map<string, number>();
  let received = 0;
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received += 1;
      try {
        const { trigger } = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { trigger?: string };
        const id = trigger?.startsWith('transfer:') ? trigger.slice('transfer:'.length) : undefined;
        if (id && !arrivals.has(id)) arrivals.set(id, Date.now());
      } catch {
        // Not a callback body: still answered, not counted as an arrival.
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    arrivals,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
