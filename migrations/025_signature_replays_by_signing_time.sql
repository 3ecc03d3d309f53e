-- Signature replay records keyed by when the request was signed, then by signature. Keyed by the
-- signature alone (002), every signed request's row went to a random page of an index as large
-- as the window's traffic (under load, a sizeable part of PostgreSQL's buffers), each
-- of those pages written out again, whole, after every checkpoint; a second index on expires_at
-- served the purge. Keyed by time, new rows go to the last pages of one index, and the purge
-- (every five seconds) deletes a range of it.
--
-- "Seen twice" stays exactly as atomic: the timestamp is part of what is signed, so a signature
-- comes with one signed_at only, and (signed_at, signature) is unique exactly when signature is.
--
-- The records made before this migration have no signing time. They stay, as they were, in
-- signature_replays_legacy, which recordSignatureUses also consults, until each expires (an hour
-- at most, the longest window) and the purge deletes it; a later migration can drop the table.
ALTER TABLE signature_replays RENAME TO signature_replays_legacy;
ALTER INDEX signature_replays_pkey RENAME TO signature_replays_legacy_pkey;
ALTER INDEX signature_replays_expiry RENAME TO signature_replays_legacy_expiry;
CREATE TABLE signature_replays (
  signed_at   timestamptz NOT NULL,
  signature   text NOT NULL,
  -- When the record may go: signed_at plus the window of the process that checked it, and a second.
  expires_at  timestamptz NOT NULL,
  PRIMARY KEY (signed_at, signature)
);
