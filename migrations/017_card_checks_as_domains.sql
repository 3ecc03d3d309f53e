-- The one-column CHECKs of the card order path's tables become domains, as 012 did for
-- reservations. Depends on 005 and 008.
--
-- PostgreSQL prepares a table's CHECK constraints again for every statement that writes it; a
-- domain's check is prepared once per connection (the type cache). wallet_orders had thirteen
-- checks, read for the order's INSERT and again for each status change, most of that INSERT's
-- time in PostgreSQL. Same conditions, same columns; the rules
-- across columns stay table checks.

-- Wallet orders (src/wallet-orders/).
CREATE DOMAIN wallet_order_id AS text CHECK (VALUE ~ '^WO_[2-9A-HJ-NP-Z]{11}$');
CREATE DOMAIN wallet_order_status AS text CHECK (VALUE IN ('RUNNING_CHECKS', 'PROCESSING', 'COMPLETE', 'FAILED'));
CREATE DOMAIN wallet_order_type AS text CHECK (VALUE IN ('DOMESTIC', 'INTERNATIONAL'));
CREATE DOMAIN wallet_order_wallet_type AS text CHECK (VALUE IN ('DEBIT_CARD', 'APPLE_PAY'));
CREATE DOMAIN wallet_order_amount AS numeric CHECK (VALUE > 0);
CREATE DOMAIN wallet_order_usd AS numeric CHECK (VALUE >= 0);
CREATE DOMAIN card_bin AS text CHECK (VALUE ~ '^[0-9]{6}$');
CREATE DOMAIN card_last4 AS text CHECK (VALUE ~ '^[0-9]{4}$');
CREATE DOMAIN card_fingerprint AS text CHECK (VALUE ~ '^[0-9a-f]{64}$');
ALTER TABLE wallet_orders
  DROP CONSTRAINT wallet_orders_id_check,
  DROP CONSTRAINT wallet_orders_status_check,
  DROP CONSTRAINT wallet_orders_order_type_check,
  DROP CONSTRAINT wallet_orders_wallet_type_check,
  DROP CONSTRAINT wallet_orders_source_amount_check,
  DROP CONSTRAINT wallet_orders_purchase_amount_check,
  DROP CONSTRAINT wallet_orders_dest_amount_check,
  DROP CONSTRAINT wallet_orders_exchange_rate_check,
  DROP CONSTRAINT wallet_orders_amount_usd_check,
  DROP CONSTRAINT wallet_orders_card_bin_check,
  DROP CONSTRAINT wallet_orders_card_last4_check,
  DROP CONSTRAINT wallet_orders_card_fingerprint_check,
  ALTER COLUMN id TYPE wallet_order_id,
  ALTER COLUMN status TYPE wallet_order_status,
  ALTER COLUMN order_type TYPE wallet_order_type,
  ALTER COLUMN wallet_type TYPE wallet_order_wallet_type,
  ALTER COLUMN source_amount TYPE wallet_order_amount,
  ALTER COLUMN purchase_amount TYPE wallet_order_amount,
  ALTER COLUMN dest_amount TYPE wallet_order_amount,
  ALTER COLUMN exchange_rate TYPE wallet_order_amount,
  ALTER COLUMN amount_usd TYPE wallet_order_usd,
  ALTER COLUMN card_bin TYPE card_bin,
  ALTER COLUMN card_last4 TYPE card_last4,
  ALTER COLUMN card_fingerprint TYPE card_fingerprint;

-- Ledger holds (src/ledger/): placed by every card order, settled by every capture.
CREATE DOMAIN ledger_hold_amount AS numeric CHECK (VALUE > 0);
CREATE DOMAIN ledger_hold_state AS text CHECK (VALUE IN ('pending', 'posted', 'voided'));
ALTER TABLE ledger_holds
  DROP CONSTRAINT ledger_holds_amount_check,
  DROP CONSTRAINT ledger_holds_state_check,
  ALTER COLUMN amount TYPE ledger_hold_amount,
  ALTER COLUMN state TYPE ledger_hold_state;

-- The sandbox card processor's authorizations (src/cards/).
CREATE DOMAIN sandbox_authorization_amount AS numeric CHECK (VALUE > 0);
CREATE DOMAIN sandbox_authorization_state AS text CHECK (VALUE IN ('AUTHORIZED', 'CAPTURED', 'VOIDED', 'REFUNDED'));
ALTER TABLE sandbox_card_authorizations
  DROP CONSTRAINT sandbox_card_authorizations_amount_check,
  DROP CONSTRAINT sandbox_card_authorizations_state_check,
  ALTER COLUMN amount TYPE sandbox_authorization_amount,
  ALTER COLUMN state TYPE sandbox_authorization_state;
