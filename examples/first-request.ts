/**
 * The first signed request: read the sandbox partner account, then today's rates and a quote.
 *
 *   node --conditions=rampart-source --import tsx examples/first-request.ts
 */
import { RampartClient, ValidationException } from '@rampart/sdk';
import { baseUrl, partnerClient, requireEnv } from './sandbox-env.ts';

async function main() {
  // #region account
  const rampart = partnerClient();
  const account = await rampart.accounts.get(requireEnv('RAMPART_ACCOUNT_ID'));
  console.log(`account ${account.id}: ${account.status}, ${account.type}, ${account.country}`);
  // #endregion account

  // #region rates
  // Rates need no credentials. The SDK returns every amount as an exact decimal string.
  const rates = await new RampartClient({ baseUrl }).rates.get({ as: 'MULTIPLIER' });
  console.log(`1 USD buys ${rates.USDETH} ETH`);
  const quote = await rampart.orders.quote({
    sourceAmount: '100',
    amountIncludeFees: true,
    sourceCurrency: 'USD',
    destCurrency: 'ETH',
    country: 'US',
  });
  console.log(`100 USD, fees included: ${quote.destAmount} ETH (fees ${JSON.stringify(quote.fees)})`);
  // #endregion rates

  // #region errors
  try {
    await rampart.accounts.create({ country: 'USA', subaccount: true });
  } catch (error) {
    if (!(error instanceof ValidationException)) throw error;
    console.log(`refused: ${error.status} ${error.errorCode} on ${error.problematicField}`);
  }
  // #endregion errors
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
