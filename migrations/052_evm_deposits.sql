-- Deposits on EVM chains (src/chains/evm/deposit-store.ts).
--
-- On an EVM chain one address receives the native coin and every configured token, so the
-- users' view keeps one row per (owner, currency) and several currencies share an address: the
-- key becomes (address, currency). That an address belongs to one owner only is kept by
-- evm_deposit_keys below. The chain list is the code's (src/chains/addresses.ts), not a CHECK.
ALTER TABLE deposit_addresses DROP CONSTRAINT deposit_addresses_pkey;
ALTER TABLE deposit_addresses ADD PRIMARY KEY (address, currency);
ALTER TABLE deposit_addresses DROP CONSTRAINT IF EXISTS deposit_addresses_chain_check;

-- One derivation index per (chain, owner): the deposit key is m/44'/60'/0'/0/<index> of the
-- custody seed. Indexes come from one sequence, so no two owners, on any chain, share a key.
-- `native_balance` is the native coin the address should hold after the blocks the watcher read
-- (what their transactions explain, and the coin credited): the next balance read tells the native
-- coin that arrived without a transaction of its own (sent by a contract).
CREATE SEQUENCE evm_deposit_index_seq MINVALUE 0 START 0;
CREATE TABLE evm_deposit_keys (
  chain             text NOT NULL,
  owner             text NOT NULL,
  derivation_index  integer NOT NULL UNIQUE,
  address           text NOT NULL,
  native_balance    numeric(78, 0) NOT NULL DEFAULT 0,
  created_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, owner),
  UNIQUE (chain, address)
);

-- The next block the watcher of a chain reads (every block before it is credited).
CREATE TABLE evm_watch_cursors (
  chain       text PRIMARY KEY,
  next_block  bigint NOT NULL CHECK (next_block >= 0),
  updated_at  timestamptz NOT NULL DEFAULT now()
);

-- Every deposit credited, once: `deposit_key` is `<txHash>:<logIndex>` for a token Transfer log,
-- `<txHash>:native` for a transaction paying the address, `internal:<address>:<block>` for
-- native coin found by the balance read. `swept` is set once the sweep that moved it confirmed.
CREATE TABLE evm_deposits (
  chain         text NOT NULL,
  deposit_key   text NOT NULL,
  address       text NOT NULL,
  owner         text NOT NULL,
  currency      text NOT NULL,
  amount        numeric NOT NULL CHECK (amount > 0),
  block_number  bigint NOT NULL,
  block_hash    text NOT NULL,
  tx_hash       text,
  credited_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (chain, deposit_key)
);
CREATE INDEX evm_deposits_owner ON evm_deposits (owner, credited_at);

-- What the sweeper asked for: sweeps to the hot wallet (`id` is the transaction's hash, recorded
-- before it is broadcast, so a restart finds it) and gas top-ups from the hot wallet (`id` is the
-- chains-port send reference `sweepgas:…`: the hot wallet's own sender pays them, with its nonces).
CREATE TABLE evm_sweeps (
  chain        text NOT NULL,
  id           text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('gas', 'sweep')),
  address      text NOT NULL,
  currency     text NOT NULL,
  amount       numeric NOT NULL,
  status       text NOT NULL DEFAULT 'SENT' CHECK (status IN ('SENT', 'CONFIRMED', 'FAILED')),
  fee          numeric,
  created_at   timestamptz NOT NULL DEFAULT now(),
  settled_at   timestamptz,
  PRIMARY KEY (chain, id)
);
CREATE INDEX evm_sweeps_open ON evm_sweeps (chain, address) WHERE status = 'SENT';
