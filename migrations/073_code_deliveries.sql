-- One order's code on its way to the buyer through the SMS provider (docs/contract.md, decision
-- 123). The job that sends it records here, around the provider's call, what became of it, so a
-- job run again after the send was recorded sends nothing. The code itself is never in this
-- table: only its keyed hash (wallet_order_authorizations) and, sealed, the job's payload.
CREATE TABLE wallet_order_code_deliveries (
  order_id            text NOT NULL REFERENCES wallet_orders (id),
  kind                text NOT NULL CHECK (kind IN ('SMS', 'CARD2FA')),
  -- SENDING: asked of the provider, no answer recorded yet; SENT: accepted (provider_reference);
  -- REFUSED: the provider answered that it cannot be sent (detail); ABANDONED: the step was no
  -- longer waiting when the job ran.
  state               text NOT NULL CHECK (state IN ('SENDING', 'SENT', 'REFUSED', 'ABANDONED')),
  attempts            integer NOT NULL CHECK (attempts > 0),
  provider_reference  text,
  detail              text,
  updated_at          timestamptz NOT NULL,
  PRIMARY KEY (order_id, kind),
  CHECK ((state = 'SENT') = (provider_reference IS NOT NULL))
);
