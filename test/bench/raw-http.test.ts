import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseResponse, RawHttpPool, requestBytes } from '../helpers/raw-http.ts';

/**
 * The fixed-rate sender's HTTP client (test/helpers/raw-http.ts) against a real Node server: it must
 * frame every kind of answer correctly, or the latency figures would time the wrong bytes.
 */

let server: http.Server;
let port: number;
const seen: { method: string; url: string; body: string; contentType: string | undefined }[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      seen.push({
        method: request.method!,
        url: request.url!,
        body,
        contentType: request.headers['content-type'],
      });
      if (request.url === '/chunked') {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.write('{"part":');
        response.end('"two"}');
      } else if (request.url === '/close') {
        response.writeHead(503, { connection: 'close', 'content-length': '2' });
        response.end('no');
      } else if (request.url === '/empty') {
        response.writeHead(204);
        response.end();
      } else {
        const text = JSON.stringify({ echo: body });
        response.writeHead(200, {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(text),
        });
        response.end(text);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe('raw HTTP client of the fixed-rate sender', () => {
  it('sends method, path, headers and body as written, and reads each framing', async () => {
    const pool = new RawHttpPool('127.0.0.1', port, 2);
    const host = `127.0.0.1:${port}`;
    const post = requestBytes(host, {
      method: 'POST',
      path: '/echo?x=1',
      headers: { 'content-type': 'application/json' },
      body: '{"é":1}',
    });
    try {
      const statuses = await Promise.all([
        pool.request(post),
        pool.request(requestBytes(host, { method: 'GET', path: '/chunked' })),
        pool.request(requestBytes(host, { method: 'GET', path: '/empty' })),
        pool.request(post),
        pool.request(requestBytes(host, { method: 'GET', path: '/close' })),
        pool.request(post),
      ]);
      expect(statuses).toEqual([200, 201, 204, 200, 503, 200]);
      expect(seen.find((request) => request.url === '/echo?x=1')).toEqual({
        method: 'POST',
        url: '/echo?x=1',
        body: '{"é":1}',
        contentType: 'application/json',
      });
    } finally {
      pool.destroy();
    }
  });

  it('waits for the last byte of a response split across reads', () => {
    const whole = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello');
    expect(parseResponse(whole.subarray(0, 20))).toBeUndefined();
    expect(parseResponse(whole.subarray(0, whole.length - 1))).toBeUndefined();
    expect(parseResponse(whole)).toEqual({ status: 200, end: whole.length, close: false });
    const chunked = Buffer.from(
      'HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
    );
    expect(parseResponse(chunked.subarray(0, chunked.length - 2))).toBeUndefined();
    expect(parseResponse(chunked)).toEqual({ status: 201, end: chunked.length, close: false });
    expect(() => parseResponse(Buffer.from('HTTP/1.1 200 OK\r\n\r\n'))).toThrow(/without Content-Length/);
  });
});
