import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The published contract must describe every route a partner or operator can call: a test
 * fails the moment a route is added without its description, success and error answers,
 * request schema or auth scheme. Problems are collected and reported together.
 */
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: unknown }> }>;
  security?: Record<string, unknown>[];
  parameters?: { in: string; name: string }[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];
/** Routes anyone may call: ops probes, the public rate and widget endpoints, hosted pages. */
const PUBLIC_PREFIXES = [
  '/healthz',
  '/readyz',
  '/metrics',
  '/v3/rates',
  '/v3/widget/',
  '/v2/sessions/auth/key',
];
/** Hosted pages answer HTML for people, not the JSON contract. */
const HTML_PREFIXES = ['/purchase', '/onboarding', '/sandbox/', '/docs'];

const isPublic = (path: string) => PUBLIC_PREFIXES.some((prefix) => path.startsWith(prefix));
const isHtml = (path: string) => HTML_PREFIXES.some((prefix) => path.startsWith(prefix));

function problemsOf(path: string, method: string, operation: Operation): string[] {
  const problems: string[] = [];
  const where = `${method.toUpperCase()} ${path}`;
  if (!operation.summary && !operation.description) problems.push(`${where}: no summary or description`);
  if (!operation.tags?.length) problems.push(`${where}: no tag`);
  const statuses = Object.keys(operation.responses ?? {});
  const success = statuses.filter((status) => /^[23]/.test(status));
  if (success.length === 0) problems.push(`${where}: no success response`);
  if (!isHtml(path) && !statuses.some((status) => /^[45]/.test(status))) {
    problems.push(`${where}: no error responses`);
  }
  for (const status of success) {
    if (status === '204' || /^3/.test(status) || isHtml(path)) continue;
    if (!operation.responses?.[status]?.content) problems.push(`${where}: ${status} has no schema`);
  }
  if ((method === 'post' || method === 'put') && !operation.requestBody && !isHtml(path)) {
    // A POST that takes nothing still says so: its body schema is an empty object.
    problems.push(`${where}: no request body schema`);
  }
  const operatorRoute = path.startsWith('/operator/');
  const needsSecurity = operatorRoute || !(isPublic(path) || isHtml(path));
  if (needsSecurity && !operation.security?.length) problems.push(`${where}: no security requirement`);
  return problems;
}

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

describe('/openapi.json completeness', () => {
  it('describes every route with a summary, tag, request and response schemas, errors and auth', async () => {
    const document = (await (await fetch(`${t.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Operation>>;
    };
    const problems: string[] = [];
    let operations = 0;
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (!METHODS.includes(method)) continue;
        operations += 1;
        problems.push(...problemsOf(path, method, operation));
      }
    }
    expect(operations).toBeGreaterThan(30);
    expect(problems).toEqual([]);
  });
});
