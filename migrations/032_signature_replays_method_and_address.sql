-- A signature covers the URL and the body but not the HTTP method (Wyre's scheme, which clients
-- cannot change), so the replay record binds it instead: the method of its first use, and the
-- client address that use came from (request.ip as the trust-proxy setting resolves it).
-- recordSignatureUses lets an identical GET repeat from that address inside the window (clients
-- poll with second-granular timestamps) and refuses every other later use: any other method,
-- any other address, any repeat of a non-GET.
--
-- The records written before this migration have neither: NULL is read as "not a GET", so
-- their signatures stay single-use, as they were when recorded. Nullable columns without a
-- default add no rewrite of the table.
ALTER TABLE signature_replays
  ADD COLUMN method text,
  ADD COLUMN address text;
