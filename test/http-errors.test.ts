import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { snapshotTables } from './helpers/db.ts';
import { startTestApp, type TestApp } from './helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => t.close());

function expectEnvelope(body: Record<string, unknown>, type: string) {
  expect(body).toMatchObject({ language: 'en', compositeType: '', subType: '', type, transient: expect.any(Boolean) });
  expect(body.exceptionId).toMatch(/^test_[2-9A-HJ-NP-Z]{6}$/);
  expect(typeof body.errorCode).toBe('string');
  expect(typeof body.message).toBe('string');
}

describe('error envelope', () => {
  it('answers an unknown route with a 404 envelope', async () => {
    const response = await fetch(`${t.baseUrl}/v3/nothing-here`);
    expect(response.status).toBe(404);
    expectEnvelope(await response.json(), 'NotFoundException');
  });

  it('answers a wrong method with 405 and Allow', async () => {
    const before = await snapshotTables(t.database.db);
    const response = await fetch(`${t.baseUrl}/healthz`, { method: 'DELETE' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expectEnvelope(await response.json(), 'MethodNotAllowedException');
    expect(await snapshotTables(t.database.db)).toEqual(before);
  });
});
