/**
 * Example (c): decentralized authentication (spec §5.4), as an end user's app does it: no partner
 * credentials at all. Generate a secret on the device, register it, create the account it belongs
 * to, then sign requests with it so the secret never travels again.
 *
 *   node --conditions=rampart-source --import tsx examples/decentralized-session.ts
 */
import { AccessDeniedException, createDecentralizedSession } from '@rampart/sdk';
import { baseUrl } from './sandbox-env.ts';

async function main() {
  // #region session
  // A 40-character secret from the OS CSPRNG, registered with POST /v2/sessions/auth/key.
  const session = await createDecentralizedSession({ baseUrl });
  console.log(`registered: apiKey ${session.apiKey}, authenticatedAs ${session.authenticatedAs}`);

  // Until an account exists for it, the secret opens nothing but POST /v3/accounts.
  try {
    await session.client.transfers.list();
  } catch (error) {
    if (!(error instanceof AccessDeniedException)) throw error;
    console.log(`before the account: ${error.status} ${error.errorCode}`);
  }

  // The first account created with the bearer secret is tied to it, once and for all.
  const account = await session.client.accounts.create({ type: 'INDIVIDUAL', country: 'US' });
  console.log(`account ${account.id}: ${account.status}`);
  // #endregion session

  // #region signed
  // From now on sign instead: X-Api-Key + HMAC over URL and body; the secret is not sent.
  const read = await session.signingClient.accounts.get(account.id);
  const updated = await session.signingClient.accounts.update(account.id, {
    profileFields: [{ fieldId: 'individualLegalName', value: 'Ada Lovelace' }],
  });
  const name = updated.profileFields.find((field) => field.fieldId === 'individualLegalName');
  console.log(`signed read ${read.id}; legal name ${name?.value} (${name?.status})`);
  const transfers = await session.signingClient.transfers.list({ limit: 10 });
  console.log(`signed list: ${transfers.recordsTotal} transfers`);
  // #endregion signed
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
