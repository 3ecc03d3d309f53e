-- Real sends on EVM chains (src/chains/evm/sender.ts). Each send of `chain_sends` paid from a hot
-- wallet gets one nonce, allocated here so two workers never share one, and its transactions
-- (the first, and any fee-bump replacements of the same nonce) are stored signed before they
-- are broadcast: after a crash the sender broadcasts or follows what it stored, and never signs
-- a second payment for the same send. Raw transactions are public once broadcast: not secrets.

-- The next nonce of each hot wallet on each chain.
CREATE TABLE evm_nonces (
  chain       text NOT NULL,
  address     text NOT NULL,
  next_nonce  bigint NOT NULL CHECK (next_nonce >= 0),
  PRIMARY KEY (chain, address)
);

-- One row per send that has its nonce: PENDING until its outcome is delivered (DONE).
CREATE TABLE evm_sends (
  reference     text PRIMARY KEY REFERENCES chain_sends (reference),
  chain         text NOT NULL,
  from_address  text NOT NULL,
  nonce         bigint NOT NULL,
  state         text NOT NULL DEFAULT 'PENDING' CHECK (state IN ('PENDING', 'DONE')),
  created_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (chain, from_address, nonce)
);
CREATE INDEX evm_sends_pending ON evm_sends (chain, nonce) WHERE state = 'PENDING';

-- Every signed transaction of a send, the newest replacement last.
CREATE TABLE evm_send_txs (
  hash                      text PRIMARY KEY,
  reference                 text NOT NULL REFERENCES evm_sends (reference),
  raw                       text NOT NULL,
  gas_limit                 numeric NOT NULL,
  max_fee_per_gas           numeric NOT NULL,
  max_priority_fee_per_gas  numeric NOT NULL,
  signed_at                 timestamptz NOT NULL DEFAULT now(),
  broadcast_at              timestamptz
);
CREATE INDEX evm_send_txs_by_send ON evm_send_txs (reference, signed_at);
