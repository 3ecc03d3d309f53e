/**
 * What every example reads from the environment (see examples/README.md). The examples are
 * written against the sandbox: the base URL, the sandbox partner's keys from the first
 * `npm start`, and the operator token for the sandbox-only money helpers.
 */
import { RampartClient } from '@rampart/sdk';

export function requireEnv(name: string): string {
  const value = process.env[name];
  if (!value) {
    console.error(`${name} is not set (see examples/README.md)`);
    process.exit(2);
  }
  return value;
}

// #region client
/** Must be the URL Rampart knows as its public URL (RAMPART_PUBLIC_URL): signatures cover it. */
export const baseUrl = process.env.RAMPART_BASE_URL ?? 'http://localhost:3000';

/** The sandbox partner account printed by the first `npm start`, signing every request. */
export function partnerClient(): RampartClient {
  return new RampartClient({
    baseUrl,
    auth: {
      type: 'signature',
      apiKey: requireEnv('RAMPART_API_KEY'),
      secretKey: requireEnv('RAMPART_SECRET_KEY'),
    },
  });
}
// #endregion client

/**
 * Calls the operator API (not part of the partner SDK: partners never hold this token). The
 * examples use it only for what sandbox has no other way to do, such as crediting a deposit.
 */
export async function operator<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${requireEnv('RAMPART_OPERATOR_TOKEN')}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}
