-- A settled hold's entry_id without a foreign key, as 010 did for postings' entry_id. The key's
-- check ran a lookup and took a row lock (one more WAL record) on the entry for every hold a card
-- capture settles, a noticeable part of ledger_settle_holds' time for a worker batch. It guarded nothing left to guard: entry_id is set only by ledger_settle_hold(s),
-- to the id of the entry the same call has just inserted, and entries are append-only (005), so
-- the entry a hold names cannot go away afterwards.
ALTER TABLE ledger_holds DROP CONSTRAINT ledger_holds_entry_id_fkey;
