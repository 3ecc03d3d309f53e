-- Database functions carry the prefix of the domain that owns them, like the tables they write
-- (ledger_*, callbacks_*, checkout_*). The pricing generation's trigger function becomes
-- pricing_bump_generation; the triggers of 012 are pointed at it and the old name is dropped.
-- Depends on 012.

CREATE FUNCTION pricing_bump_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE pricing_generation SET generation = generation + 1 WHERE id;
  RETURN NULL;
END $$;

DROP TRIGGER reference_prices_generation ON reference_prices;
CREATE TRIGGER reference_prices_generation
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON reference_prices
  FOR EACH STATEMENT EXECUTE FUNCTION pricing_bump_generation();

DROP TRIGGER fee_schedule_generation ON fee_schedule;
CREATE TRIGGER fee_schedule_generation
  AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON fee_schedule
  FOR EACH STATEMENT EXECUTE FUNCTION pricing_bump_generation();

DROP FUNCTION bump_pricing_generation();
