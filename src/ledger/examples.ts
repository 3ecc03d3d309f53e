import { EXAMPLE_IDS } from '../platform/http/examples.ts';

/** OpenAPI example of an operator credit: the example user's first 250 USD. */

export const creditRequest = {
  owner: `user:${EXAMPLE_IDS.user}`,
  currency: 'USD',
  amount: '250.00',
  memo: 'Sandbox funding',
};

export const creditAnswer = {
  entryId: 1,
  owner: `user:${EXAMPLE_IDS.user}`,
  currency: 'USD',
  amount: 250,
  totalBalances: { USD: 250 },
  availableBalances: { USD: 250 },
};
