-- Postings keyed by (entry_id, id): one index where there were two.
--
-- 005 gave ledger_postings a primary key on id and a second index on entry_id. No statement reads
-- a posting by its id (the audits in src/ledger/store.ts scan them all; an entry's postings are
-- found by entry), yet every posting wrote an entry into both: five postings per card order, ten
-- index insertions, both at the right edge of their index. The key (entry_id, id) is as unique
-- as id (ids come from the sequence and are never reused), finds an entry's postings as the old
-- entry_id index did, and costs one insertion per posting.
ALTER TABLE ledger_postings
  DROP CONSTRAINT ledger_postings_pkey,
  ADD CONSTRAINT ledger_postings_pkey PRIMARY KEY (entry_id, id);
DROP INDEX ledger_postings_entry;
