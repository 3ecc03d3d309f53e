import type Stripe from 'stripe';
import type { ProcessorEvent } from '../connector.ts';
import { disputeSnapshot, isInquiry, orderIdOf, paymentSnapshot, refundSnapshot } from './responses.ts';

/**
 * A verified Stripe event in Rampart's terms; `null` for a type Rampart has no use for.
 *
 * `orderId` is Rampart's id where the object carries it in metadata (PaymentIntents and refunds
 * the connector made, and charges, which inherit the PaymentIntent's metadata). A dispute carries
 * none: its `paymentReference` names the PaymentIntent, and the caller finds the order by that
 * processor reference (docs/contract.md, decision 98).
 */
export function processorEventOf(event: Stripe.Event): ProcessorEvent | null {
  switch (event.type) {
    case 'payment_intent.amount_capturable_updated':
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    case 'payment_intent.canceled':
    case 'payment_intent.requires_action':
    case 'payment_intent.processing': {
      const pi = event.data.object;
      return {
        eventId: event.id,
        kind: 'payment.updated',
        orderId: orderIdOf(pi.metadata),
        payment: paymentSnapshot(pi),
      };
    }
    case 'refund.created':
    case 'refund.updated':
    case 'refund.failed':
    case 'charge.refund.updated': {
      const refund = event.data.object;
      return {
        eventId: event.id,
        kind: 'refund.updated',
        orderId: orderIdOf(refund.metadata),
        refund: refundSnapshot(refund),
      };
    }
    case 'charge.refunded':
      return chargeRefunded(event);
    case 'charge.dispute.created': {
      const dispute = event.data.object;
      if (isInquiry(dispute)) return null;
      return {
        eventId: event.id,
        kind: 'dispute.opened',
        orderId: orderIdOf(dispute.metadata),
        dispute: disputeSnapshot(dispute),
      };
    }
    case 'charge.dispute.closed': {
      const dispute = event.data.object;
      const kind =
        dispute.status === 'won' ? 'dispute.won' : dispute.status === 'lost' ? 'dispute.lost' : null;
      if (kind === null) return null;
      return {
        eventId: event.id,
        kind,
        orderId: orderIdOf(dispute.metadata),
        dispute: disputeSnapshot(dispute),
      };
    }
    default:
      return null;
  }
}

/**
 * `charge.refunded` carries the Charge; its newest refund is the one that moved, where Stripe
 * includes the list (older API versions). Without it the event says nothing a `refund.*` event
 * does not say better, so it is ignored.
 */
function chargeRefunded(event: Stripe.ChargeRefundedEvent): ProcessorEvent | null {
  const charge = event.data.object;
  const newest = charge.refunds?.data?.[0];
  if (!newest) return null;
  const refund = refundSnapshot({
    ...newest,
    payment_intent: newest.payment_intent ?? charge.payment_intent,
  });
  return {
    eventId: event.id,
    kind: 'refund.updated',
    orderId: orderIdOf(newest.metadata) ?? orderIdOf(charge.metadata),
    refund,
  };
}
