import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An HTTP proxy for crash tests: forwards every request to `target` as it is, except that a
 * request matching an armed rule is forwarded, answered upstream, and its answer then withheld
 * (the connection left hanging): the far side did the work and the caller never hears of it,
 * the moment to SIGKILL the caller.
 */
export interface HoldingProxy {
  url: string;
  /** Withholds the answer of the next request for which `matches(method, path)` holds. */
  holdNext(matches: (method: string, path: string) => boolean): Promise<void>;
  /** Answers the next matching request 500 without forwarding it (nothing done upstream). */
  failNext(matches: (method: string, path: string) => boolean): void;
  close(): Promise<void>;
}

export async function startHoldingProxy(target: string): Promise<HoldingProxy> {
  const rules: { matches: (method: string, path: string) => boolean; held: () => void; fail?: boolean }[] =
    [];
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = req.url ?? '/';
      const index = rules.findIndex((rule) => rule.matches(req.method ?? 'GET', path.split('?')[0]!));
      const rule = index >= 0 ? rules.splice(index, 1)[0] : undefined;
      if (rule?.fail) {
        const error = { error: { type: 'api_error', message: 'An unknown error occurred (proxy).' } };
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(error));
        return rule.held();
      }
      const upstream = http.request(
        new URL(path, target),
        { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
        (answer) => {
          const body: Buffer[] = [];
          answer.on('data', (chunk: Buffer) => body.push(chunk));
          answer.on('end', () => {
            if (rule) return rule.held();
            res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(body));
          });
        },
      );
      upstream.on('error', () => res.destroy());
      upstream.end(Buffer.concat(chunks));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    holdNext: (matches) => new Promise<void>((held) => rules.push({ matches, held })),
    failNext: (matches) => {
      rules.push({ matches, held: () => undefined, fail: true });
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
