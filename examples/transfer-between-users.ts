/**
 * Example (a): onboard two users to the TRANSFER scope (profile fields and a document upload),
 * fund one through a sandbox deposit, move funds to the other and receive the transfer's callback
 * on a local receiver that verifies its signature.
 *
 *   node --conditions=rampart-source --import tsx examples/transfer-between-users.ts
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type CallbackPayload, type RampartClient, verifyCallback } from '@rampart/sdk';
import { operator, partnerClient } from './sandbox-env.ts';

// A real app uploads the photo the user took of their passport; this is a 1×1 PNG.
const PASSPORT_PNG = Buffer.from(
  '89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082',
  'hex',
);

const ADDRESS = {
  street1: '1 Market St',
  city: 'San Francisco',
  state: 'CA',
  postalCode: '94105',
  country: 'US',
};

// #region receiver
/**
 * A callback receiver: verifies X-Rampart-Signature over the raw bytes before trusting anything,
 * answers 200 to accept (anything else counts as a failed delivery), then hands the payload on.
 */
async function startReceiver(webhookSecret: string, onCallback: (payload: CallbackPayload) => void) {
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      try {
        const payload = verifyCallback(
          Buffer.concat(chunks),
          request.headers['x-rampart-signature'] as string | undefined,
          webhookSecret,
        );
        response.writeHead(200).end();
        onCallback(payload);
      } catch (error) {
        console.error(`refused a callback: ${(error as Error).message}`);
        response.writeHead(400).end();
      }
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/rampart-callbacks`, close: () => server.close() };
}
// #endregion receiver

// #region onboard
/** Creates a user for TRANSFER in two steps, uploading a passport scan in between. */
async function onboardForTransfers(rampart: RampartClient, firstName: string) {
  const created = await rampart.users.create({
    fields: { firstName, lastName: 'Example', email: `${firstName.toLowerCase()}@example.com` },
    scopes: ['TRANSFER'],
    blockchains: ['ETH'],
  });
  console.log(`${firstName}: ${created.id}, TRANSFER open fields: ${created.scopes.TRANSFER?.openFields}`);
  await rampart.users.uploadDocument(created.id, 'governmentIdFront', {
    docType: 'PASSPORT',
    contentType: 'image/png',
    data: PASSPORT_PNG,
  });
  const user = await rampart.users.update(created.id, {
    fields: { dateOfBirth: '1990-01-01', residenceAddress: ADDRESS },
  });
  // Sandbox approves a complete scope at once; production waits for the operator's review.
  const status = user.scopes.TRANSFER?.status;
  console.log(`${firstName}: TRANSFER ${status}, governmentIdFront ${user.fields.governmentIdFront?.status}`);
  if (status !== 'APPROVED') throw new Error(`TRANSFER is ${status}: is RAMPART_SANDBOX_AUTO_APPROVE=false?`);
  return user;
}
// #endregion onboard

async function main() {
  const rampart = partnerClient();
  const { webhookSecret } = await rampart.subscriptions.signingSecret();
  const callbacks: CallbackPayload[] = [];
  let callbackArrived: () => void = () => undefined;
  const arrived = new Promise<void>((resolve) => {
    callbackArrived = resolve;
  });
  const receiver = await startReceiver(webhookSecret, (payload) => {
    callbacks.push(payload);
    callbackArrived();
  });

  const alice = await onboardForTransfers(rampart, 'Alice');
  const bob = await onboardForTransfers(rampart, 'Bob');

  // #region fund
  // Sandbox only: an incoming USDC deposit to Alice's Ethereum deposit address.
  const ethAddress = alice.depositAddresses.ETH;
  const deposit = await operator<{ totalBalances: Record<string, number> }>(
    'POST',
    '/operator/v1/sandbox/deposits',
    { dest: `ethereum:${ethAddress}`, currency: 'USDC', amount: '25' },
  );
  console.log(`deposited 25 USDC to ${ethAddress}: Alice holds ${deposit.totalBalances.USDC} USDC`);
  // #endregion fund

  // #region transfer
  // Acting as Alice (masqueradeAs=user:…, signed with the URL), pay Bob 10 USDC.
  const asAlice = rampart.masquerade(`user:${alice.id}`);
  const transfer = await asAlice.transfers.create({
    source: `user:${alice.id}`,
    sourceCurrency: 'USDC',
    sourceAmount: '10',
    dest: `user:${bob.id}`,
    destCurrency: 'USDC',
    message: 'Dinner',
    autoConfirm: true,
    notifyUrl: receiver.url,
  });
  console.log(`transfer ${transfer.id}: ${transfer.status}, ${transfer.destAmount} ${transfer.destCurrency}`);
  // #endregion transfer

  const timer = setTimeout(() => {
    console.error('no callback within 15 s');
    process.exit(1);
  }, 15_000);
  await arrived;
  clearTimeout(timer);
  const [callback] = callbacks;
  console.log(`callback verified: ${callback?.trigger} (subscription ${callback?.subscriptionId})`);
  if (callback?.trigger !== `transfer:${transfer.id}`) throw new Error('callback for another transfer');
  receiver.close();

  // #region balances
  const [aliceNow, bobNow] = await Promise.all([rampart.users.get(alice.id), rampart.users.get(bob.id)]);
  console.log(`Alice: ${aliceNow.availableBalances.USDC} USDC, Bob: ${bobNow.availableBalances.USDC} USDC`);
  // #endregion balances
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
