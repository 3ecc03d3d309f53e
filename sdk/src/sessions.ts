import { RampartClient } from './client.js';
import { randomAlphanumeric } from './random.js';
import type { CallOptions, ClientOptions } from './transport.js';

/** Spec §5.4's example uses 30 characters; 40 alphanumerics carry about 238 bits. */
export const SESSION_SECRET_LENGTH = 40;

export interface DecentralizedSession {
  /** The generated secret: keep it on the end user's device only. */
  secretKey: string;
  /** The API key the server returned for it. */
  apiKey: string;
  /** null until an account is created with the session (`session.client.accounts.create`). */
  authenticatedAs: string | null;
  /** Bearer client (`Authorization: Bearer <secretKey>`). */
  client: RampartClient;
  /** The same credentials used as signature auth: the secret is then never sent again (spec §5.4.5). */
  signingClient: RampartClient;
}

/**
 * Decentralized authentication (spec §5.4): generates the secret with the OS CSPRNG, registers it
 * (`POST /v2/sessions/auth/key`, secret in the JSON body so it stays out of URL logs) and returns
 * clients using it. The first call should then be `client.accounts.create({country, …})`.
 */
export async function createDecentralizedSession(
  options: Omit<ClientOptions, 'auth'>,
  callOptions?: CallOptions,
): Promise<DecentralizedSession> {
  const secretKey = randomAlphanumeric(SESSION_SECRET_LENGTH);
  const anonymous = new RampartClient(options);
  const registered = await anonymous.sessions.registerKey(secretKey, callOptions);
  return {
    secretKey,
    apiKey: registered.apiKey,
    authenticatedAs: registered.authenticatedAs,
    client: new RampartClient({ ...options, auth: { type: 'bearer', token: secretKey } }),
    signingClient: new RampartClient({
      ...options,
      auth: { type: 'signature', apiKey: registered.apiKey, secretKey },
    }),
  };
}
