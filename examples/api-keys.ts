/**
 * API keys: a read-only key, an IP whitelist, bearer authentication and masquerading as a
 * sub-account.
 *
 *   node --conditions=rampart-source --import tsx examples/api-keys.ts
 */
import { AccessDeniedException, RampartClient } from '@rampart/sdk';
import { baseUrl, partnerClient, requireEnv } from './sandbox-env.ts';

async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return 'allowed';
  } catch (error) {
    if (!(error instanceof AccessDeniedException)) throw error;
    return `${error.status} ${error.errorCode}`;
  }
}

async function main() {
  const rampart = partnerClient();
  const accountId = requireEnv('RAMPART_ACCOUNT_ID');

  // #region readonly
  // A key that reads but cannot write, usable only from the listed addresses (IPs or CIDRs).
  const readOnly = await rampart.apiKeys.create({
    desc: 'reporting job',
    type: 'READONLY',
    ipWhitelist: ['127.0.0.1', '::1', '10.0.0.0/8'],
  });
  const reporting = new RampartClient({
    baseUrl,
    auth: { type: 'signature', apiKey: readOnly.apiKey, secretKey: readOnly.secretKey },
  });
  console.log(`read-only key reads: ${(await reporting.accounts.get(accountId)).id}`);
  console.log(
    `read-only key writes: ${await refusal(reporting.accounts.create({ country: 'US', subaccount: true }))}`,
  );
  // #endregion readonly

  // #region whitelist
  // A key whitelisted elsewhere is refused from here, even with a valid signature.
  const elsewhere = await rampart.apiKeys.create({ desc: 'office only', ipWhitelist: ['203.0.113.0/24'] });
  const fromHere = new RampartClient({
    baseUrl,
    auth: { type: 'signature', apiKey: elsewhere.apiKey, secretKey: elsewhere.secretKey },
  });
  console.log(`whitelisted elsewhere: ${await refusal(fromHere.accounts.get(accountId))}`);
  // #endregion whitelist

  // #region bearer
  // Bearer: the secret itself in Authorization. Simpler, but the secret travels with every call.
  const bearer = new RampartClient({ baseUrl, auth: { type: 'bearer', token: readOnly.secretKey } });
  console.log(`bearer reads: ${(await bearer.accounts.get(accountId)).id}`);
  // #endregion bearer

  // #region masquerade
  // Act for a sub-account: masqueradeAs=<id> goes into the signed URL of every call.
  const sub = await rampart.accounts.create({ type: 'INDIVIDUAL', country: 'US', subaccount: true });
  const asSub = rampart.masquerade(sub.id);
  const updated = await asSub.accounts.update(sub.id, {
    profileFields: [{ fieldId: 'individualEmail', value: 'sub@example.com' }],
  });
  console.log(`as ${sub.id}: ${updated.profileFields.find((f) => f.fieldId === 'individualEmail')?.value}`);
  // #endregion masquerade

  // #region delete
  await rampart.apiKeys.delete(readOnly.apiKey);
  await rampart.apiKeys.delete(elsewhere.apiKey);
  console.log(`deleted key: ${await refusal(reporting.accounts.get(accountId))}`);
  // #endregion delete
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
