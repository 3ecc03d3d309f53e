-- The hosted checkout's card attempts, for its caps on card testing (src/checkout/attempts.ts):
-- per reservation, per card and per client IP, counted across processes. Depends on 017.
--
-- A row is an attempt the processor refused (error_code set: the refusal the partner API would
-- have answered, processor code included, which the buyer is never shown) or one still waiting
-- for the processor's answer (error_code NULL): it counts too, so concurrent attempts cannot
-- together pass a cap. An attempt that did not end in a refusal is deleted. Housekeeping deletes
-- rows a day old; the caps look back an hour, or a reservation's fifteen minutes.
CREATE TABLE checkout_card_attempts (
  id                bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  reservation_id    text NOT NULL,
  partner_id        text NOT NULL,
  card_fingerprint  card_fingerprint NOT NULL,
  -- The client IP as the server resolved it (RAMPART_TRUST_PROXY); an IPv6 client by its /64.
  client            text NOT NULL,
  at                timestamptz NOT NULL,
  error_code        text,
  error_message     text
);
CREATE INDEX checkout_card_attempts_reservation ON checkout_card_attempts (reservation_id);
-- The hourly counts: one index range each, at and after the hour's start.
CREATE INDEX checkout_card_attempts_card ON checkout_card_attempts (card_fingerprint, at);
CREATE INDEX checkout_card_attempts_client ON checkout_card_attempts (client, at);

-- Checks the three caps and, when none is reached, records the attempt (its id answered), in one
-- call. The keys' locks serialise the callers sharing one: each count below is a statement of
-- its own, so it sees what the callers it waited for committed. One key of each kind, always
-- taken in this order, so two callers cannot wait for each other. A refusal names the cap and,
-- for the hourly ones, the oldest attempt it counted (the window frees a place an hour after it).
CREATE FUNCTION checkout_attempt_begin(
  attempt_reservation text, attempt_partner text, attempt_card text, attempt_client text,
  attempt_at timestamptz, hour_start timestamptz,
  max_per_reservation integer, max_per_card integer, max_per_client integer,
  OUT attempt_id bigint, OUT refused text, OUT oldest_counted timestamptz)
LANGUAGE plpgsql AS $$
DECLARE
  counted integer;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('checkout-attempts:reservation:' || attempt_reservation, 34));
  PERFORM pg_advisory_xact_lock(hashtextextended('checkout-attempts:card:' || attempt_card, 34));
  PERFORM pg_advisory_xact_lock(hashtextextended('checkout-attempts:client:' || attempt_client, 34));
  SELECT count(*) INTO counted FROM checkout_card_attempts WHERE reservation_id = attempt_reservation;
  IF counted >= max_per_reservation THEN
    refused := 'reservation';
    RETURN;
  END IF;
  SELECT count(*), min(at) INTO counted, oldest_counted
  FROM checkout_card_attempts WHERE card_fingerprint = attempt_card AND at > hour_start;
  IF counted >= max_per_card THEN
    refused := 'card';
    RETURN;
  END IF;
  SELECT count(*), min(at) INTO counted, oldest_counted
  FROM checkout_card_attempts WHERE client = attempt_client AND at > hour_start;
  IF counted >= max_per_client THEN
    refused := 'client';
    RETURN;
  END IF;
  oldest_counted := NULL;
  INSERT INTO checkout_card_attempts (reservation_id, partner_id, card_fingerprint, client, at)
  VALUES (attempt_reservation, attempt_partner, attempt_card, attempt_client, attempt_at)
  RETURNING id INTO attempt_id;
END $$;

-- Records the processor's refusal of an attempt; answers how many attempts of its reservation
-- have been refused, this one included. Under the reservation's lock, so of two refusals ending
-- at once the later one counts both.
CREATE FUNCTION checkout_attempt_refused(attempt bigint, refusal_code text, refusal_message text)
RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  reservation text;
  refused integer;
BEGIN
  SELECT reservation_id INTO reservation FROM checkout_card_attempts WHERE id = attempt;
  IF reservation IS NULL THEN
    RETURN 0;
  END IF;
  PERFORM pg_advisory_xact_lock(hashtextextended('checkout-attempts:reservation:' || reservation, 34));
  UPDATE checkout_card_attempts SET error_code = refusal_code, error_message = refusal_message WHERE id = attempt;
  SELECT count(*) INTO refused
  FROM checkout_card_attempts WHERE reservation_id = reservation AND error_code IS NOT NULL;
  RETURN refused;
END $$;
