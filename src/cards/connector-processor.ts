import type { Queryable } from '../platform/db/pool.ts';
import type { CheckedCard } from './card-input.ts';
import type { CardConnector, ConnectorBilling, ConnectorResult, TimeRange } from './connector.ts';
import { cardErrors } from './errors.ts';
import {
  insertPayments,
  orderOfReference,
  requestCaptures,
  requestRefund,
  requestVoid,
} from './payments-store.ts';
import {
  type AuthorizeResult,
  CARD_AUTHORIZATION_LIFETIME_MS,
  type CardProcessor,
  type ProcessorBooks,
} from './processor.ts';

/**
 * The card processor port on a remote processor's connector, intent before effect
 * (docs/contract.md, "Card processors", decisions 100-104): nothing the order's transaction does
 * reaches the processor, so a rolled-back order asks for nothing and a crash can never charge
 * twice or leave a hold without an order.
 * - `prepare` tokenizes the card before the order's transaction (no money moves);
 * - `authorize` writes the order's payment (AUTHORIZING) in the order's transaction and answers
 *   PENDING; the order's service asks the processor after COMMIT (wallet-orders/card-payments.ts);
 * - `capture`, `void` and `refund` write an operation and its job in the caller's transaction;
 *   the job makes the call after COMMIT with the key paymentKey(order, kind, n).
 */
export function connectorProcessor(connector: CardConnector): CardProcessor {
  return {
    simulatesIssuer: false,
    // Stripe's seven days; a connector whose processor holds shorter would say so here.
    authorizationLifetimeMs: CARD_AUTHORIZATION_LIFETIME_MS,
    remote: connector,
    books: (q, range) => booksOf(q, connector, range),
    async prepare(card: CheckedCard, billing: ConnectorBilling): Promise<string> {
      const answer = await connector.tokenize(
        { pan: card.pan, expMonth: card.expMonth, expYear: card.expYear, cvv: card.cvv },
        billing,
      );
      if (answer.ok) return answer.value.token;
      // Tokenizing moves no money: a refusal is the card's (the number the processor will not
      // take), anything unconfirmed is the processor being away.
      if (answer.unconfirmed) throw cardErrors.processorTimeout();
      throw cardErrors.declined('14', 'Invalid card');
    },
    authorize(q, calls) {
      const written = (async () => {
        const live = calls.filter((call) => !call.signal.aborted);
        if (live.length === 0) return;
        await insertPayments(
          q,
          live.map(({ request }) => {
            if (!request.token)
              throw new Error(`order ${request.orderId} reached authorize without a card token`);
            return {
              orderId: request.orderId,
              processor: connector.name,
              token: request.token,
              cardFingerprint: request.fingerprint,
              amount: request.amount.toFixed(),
              currency: request.currency,
              force3ds: request.force3ds === true,
            };
          }),
        );
      })();
      written.catch(() => undefined);
      return calls.map(async (call): Promise<AuthorizeResult> => {
        await written;
        call.signal.throwIfAborted();
        return { outcome: 'PENDING' };
      });
    },
    capture: (q, orderIds) => requestCaptures(q, orderIds),
    void: (q, orderId) => requestVoid(q, orderId),
    refund: (q, orderId, refund) => requestRefund(q, orderId, refund.refundId, refund.amount.toFixed()),
  };
}

/**
 * The processor's books for the card reconciliation (docs/contract.md, decision 122): its balance
 * transactions and payouts of the period. An answer it did not give is 503, transient.
 */
async function booksOf(q: Queryable, connector: CardConnector, range: TimeRange): Promise<ProcessorBooks> {
  const [transactions, payouts] = await Promise.all([
    connector.balanceTransactions(range),
    connector.payouts(range),
  ]);
  const balanceTransactions = await Promise.all(
    answered(transactions).map(async (transaction) => {
      // A dispute carries no metadata of Rampart's: its payment names the order.
      if (transaction.orderId !== null || !transaction.paymentReference) return transaction;
      const orderId = await orderOfReference(q, connector.name, transaction.paymentReference);
      return { ...transaction, orderId: orderId ?? null };
    }),
  );
  return { balanceTransactions, payouts: answered(payouts) };
}

function answered<T>(result: ConnectorResult<T>): T {
  if (result.ok) return result.value;
  throw cardErrors.booksUnavailable();
}
