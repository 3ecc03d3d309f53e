-- Reservations are stored by one autocommit INSERT (src/orders/store.ts) that also checks the
-- quote was made on the prices and fees still in force, and that INSERT is made cheaper.
-- Depends on 004.

-- A counter bumped by every write to the prices or the fee schedule, whoever makes it (operator
-- API, CLI, SQL). Each process reads it with its copy of both; a reservation INSERT names the
-- generation its quote was made with and stores nothing when it is no longer the current one, so
-- no process locks a quote on prices or fees changed elsewhere since its last read.
CREATE TABLE pricing_generation (
  id          boolean PRIMARY KEY DEFAULT true CHECK (id),
  generation  bigint NOT NULL
);
INSERT INTO pricing_generation (id, generation) VALUES (true, 1);
-- Known to be one page, plans read the row directly rather than through the primary key index.
ANALYZE pricing_generation;

CREATE FUNCTION bump_pricing_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE pricing_generation SET generation = generation + 1 WHERE id;
  RETURN NULL;
END $$;

CREATE TRIGGER reference_prices_generation
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON reference_prices
  FOR EACH STATEMENT EXECUTE FUNCTION bump_pricing_generation();
CREATE TRIGGER fee_schedule_generation
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON fee_schedule
  FOR EACH STATEMENT EXECUTE FUNCTION bump_pricing_generation();

-- The foreign keys to accounts cost each INSERT two row locks (FOR KEY SHARE) on the partner's
-- account row, which every concurrent reservation of that partner takes: MultiXacts on one hot
-- row, a quarter of the INSERT's time under load. Both ids come from the authenticated caller
-- and accounts are never deleted, so the keys only re-checked what authentication just read.
ALTER TABLE reservations
  DROP CONSTRAINT reservations_partner_id_fkey,
  DROP CONSTRAINT reservations_account_id_fkey;

-- No query reads reservations by partner: every read and the single-use UPDATE go by id.
DROP INDEX reservations_partner;

-- PostgreSQL reads and plans a table's CHECK constraints again for every INSERT and UPDATE: the
-- eight of reservations cost a third of the INSERT's own time. A domain's check is planned once
-- per connection (the type cache), so the rules on one column become domains, with the same
-- conditions; the two rules across columns stay table checks.
CREATE DOMAIN reservation_id AS text CHECK (VALUE ~ '^[2-9A-HJ-NP-Z]{20}$');
CREATE DOMAIN reservation_state AS text CHECK (VALUE IN ('valid', 'used'));
CREATE DOMAIN reservation_amount AS numeric CHECK (VALUE > 0);
ALTER TABLE reservations
  DROP CONSTRAINT reservations_id_check,
  DROP CONSTRAINT reservations_state_check,
  DROP CONSTRAINT reservations_source_amount_check,
  DROP CONSTRAINT reservations_source_amount_without_fees_check,
  DROP CONSTRAINT reservations_dest_amount_check,
  DROP CONSTRAINT reservations_exchange_rate_check,
  ALTER COLUMN id TYPE reservation_id,
  ALTER COLUMN state TYPE reservation_state,
  ALTER COLUMN source_amount TYPE reservation_amount,
  ALTER COLUMN source_amount_without_fees TYPE reservation_amount,
  ALTER COLUMN dest_amount TYPE reservation_amount,
  ALTER COLUMN exchange_rate TYPE reservation_amount;
