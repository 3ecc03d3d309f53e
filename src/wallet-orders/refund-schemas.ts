import { Type } from 'typebox';
import { EXAMPLE_IDS, exampleTime } from '../platform/http/examples.ts';

/** Schemas and examples of refunds, disputes and the card reconciliation (refund-routes.ts). */

const RefundStatus = Type.Union([Type.Literal('PENDING'), Type.Literal('COMPLETE'), Type.Literal('FAILED')]);

/** The partner's refund takes no fields: the body is empty (`{}` or nothing). */
export const PartnerRefundBody = Type.Object({}, { additionalProperties: true });

export const PartnerRefundAnswer = Type.Object({
  walletOrderId: Type.String(),
  createdAt: Type.Integer({ description: 'Epoch milliseconds' }),
  requester: Type.String({ description: 'Who asked: account:AC_…, operator:<name>, system or processor' }),
  status: RefundStatus,
  finishedAt: Type.Union([Type.Integer(), Type.Null()]),
  failedReason: Type.Union([Type.String(), Type.Null()]),
});

export const partnerRefundExample = {
  walletOrderId: EXAMPLE_IDS.walletOrder,
  createdAt: exampleTime(600),
  requester: `account:${EXAMPLE_IDS.partnerAccount}`,
  status: 'COMPLETE' as const,
  finishedAt: exampleTime(600),
  failedReason: null,
};

export const OperatorRefundBody = Type.Object(
  {
    amount: Type.Optional(
      Type.Union([Type.String({ maxLength: 64 }), Type.Number()], {
        description:
          'Part of the charge to refund (a delivered order only); the whole of what is left when left out',
      }),
    ),
    requestedBy: Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Who at the operator asks: kept with the refund and audited',
    }),
    reason: Type.Optional(Type.String({ maxLength: 500 })),
  },
  { additionalProperties: false },
);

export const OperatorRefundAnswer = Type.Object({
  ...PartnerRefundAnswer.properties,
  id: Type.String({ description: "The refund's id, also the processor's idempotency key" }),
  kind: Type.Union([
    Type.Literal('VOID'),
    Type.Literal('FULL'),
    Type.Literal('PARTIAL'),
    Type.Literal('PROCESSOR'),
  ]),
  amount: Type.Number(),
  currency: Type.String(),
  booking: Type.Union([Type.Literal('CAPTURE_REVERSED'), Type.Literal('LOSS'), Type.Literal('NONE')]),
  reason: Type.Union([Type.String(), Type.Null()]),
});

export const operatorRefundRequest = {
  amount: '25.00',
  requestedBy: 'jane@operator.example',
  reason: 'goodwill',
};
export const operatorRefundExample = {
  ...partnerRefundExample,
  requester: 'operator:jane@operator.example',
  id: `rampart-${EXAMPLE_IDS.walletOrder}-refund-1`,
  kind: 'PARTIAL' as const,
  amount: 25,
  currency: 'USD',
  booking: 'LOSS' as const,
  reason: 'goodwill',
};

export const DisputeBody = Type.Object(
  { action: Type.Union([Type.Literal('OPEN'), Type.Literal('WIN'), Type.Literal('LOSE')]) },
  { additionalProperties: false },
);

export const DisputeAnswer = Type.Object({
  orderId: Type.String(),
  orderStatus: Type.String(),
  event: Type.String({
    description: 'The processor event it stands for: dispute.opened, dispute.won or dispute.lost',
  }),
  reference: Type.String(),
  amount: Type.Number(),
  currency: Type.String(),
});

export const disputeExample = {
  orderId: EXAMPLE_IDS.walletOrder,
  orderStatus: 'CHARGEBACK',
  event: 'dispute.opened',
  reference: `dp_sandbox_${EXAMPLE_IDS.walletOrder}`,
  amount: 105.5,
  currency: 'USD',
};

export const ReconciliationQuery = Type.Object(
  {
    from: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'ISO 8601 time or epoch milliseconds (default: 30 days before `to`)',
      }),
    ),
    to: Type.Optional(
      Type.String({
        maxLength: 40,
        description: 'ISO 8601 time or epoch milliseconds, exclusive (default: now)',
      }),
    ),
    format: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

const Amount = Type.Number();
const CurrencyLine = Type.Object({
  currency: Type.String(),
  captured: Amount,
  refunded: Amount,
  chargebacks: Amount,
  processingFees: Amount,
  disputeFees: Amount,
  other: Amount,
  ledgerNet: Amount,
  processorNet: Amount,
  difference: Amount,
  balanced: Type.Boolean(),
});

const Mismatch = Type.Object({
  orderId: Type.Union([Type.String(), Type.Null()]),
  currency: Type.String(),
  category: Type.String(),
  ledger: Amount,
  processor: Amount,
  difference: Amount,
});

const PayoutLine = Type.Object({
  reference: Type.String(),
  currency: Type.String(),
  amount: Amount,
  status: Type.String(),
  paidOutTransactions: Amount,
  matched: Type.Boolean(),
});

export const CardReconciliationAnswer = Type.Object({
  from: Type.Integer(),
  to: Type.Integer(),
  currencies: Type.Array(CurrencyLine),
  mismatches: Type.Array(Mismatch),
  payouts: Type.Array(PayoutLine),
  feesBooked: Type.Integer(),
  balanced: Type.Boolean(),
});

export const cardReconciliationExample = {
  from: exampleTime(-30 * 86400),
  to: exampleTime(0),
  currencies: [
    {
      currency: 'USD',
      captured: 105.5,
      refunded: 25,
      chargebacks: 0,
      processingFees: 3.36,
      disputeFees: 0,
      other: 0,
      ledgerNet: 77.14,
      processorNet: 77.14,
      difference: 0,
      balanced: true,
    },
  ],
  mismatches: [],
  payouts: [
    {
      reference: 'po_1NXWpQ2eZvKYlo2C',
      currency: 'USD',
      amount: 77.14,
      status: 'PAID',
      paidOutTransactions: 77.14,
      matched: true,
    },
  ],
  feesBooked: 1,
  balanced: true,
};
