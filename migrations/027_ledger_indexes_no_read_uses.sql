-- Three ledger indexes that no statement reads, written by every posting, entry and card hold.
--
-- ledger_postings_owner (005) indexed every posting by (owner, currency). Balances are kept in
-- ledger_balances, and the only reads of postings (the audits in src/ledger/store.ts) scan them
-- all, so no statement ever used it; yet every card order wrote five entries into it, all under
-- system owners' keys (external:card, house:fx, house:fees, external:chain:…), each key
-- repeated once per order, inserted in the middle of its run of duplicates. A system owner's
-- postings will never be read by owner; a customer's may be (an account statement), so the index
-- stays for customers only, where it costs what it did.
--
-- ledger_entries_reference (005) indexed entries by reference (`order:WO_…`, `transfer:TF_…`,
-- random ids, so each insert landed on a random page of it) and no statement reads entries by
-- reference. A read that needs it should bring it back with the read.
--
-- ledger_holds_owner (005) indexed pending holds by (owner, currency): every card order's hold
-- went into it under external:card's key, and only the ledger audit reads pending holds by owner,
-- summing all of them (a scan either way). The expiry sweep keeps its index (ledger_holds_pending).

DROP INDEX ledger_postings_owner;
CREATE INDEX ledger_postings_customer_owner ON ledger_postings (owner, currency)
  WHERE NOT (owner LIKE 'external:%' OR owner LIKE 'house:%');
DROP INDEX ledger_entries_reference;
DROP INDEX ledger_holds_owner;
