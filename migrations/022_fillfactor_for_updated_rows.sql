-- Room on each page for the new versions of rows that change in place, so those updates stay
-- HOT (heap-only: no new index entries, and the old version is pruned from the page without a
-- vacuum). A HOT update needs free space on the row's own page; these tables were filled to
-- 100%, so after a bench run of card orders only 15% of wallet_orders' status changes, 5% of
-- reservations' uses and 53% of the sandbox authorizations' state changes were HOT, the rest
-- each writing a new entry into every index of the table (bench/FINDINGS.md, session 7). None of
-- these updates changes an indexed column. Applies to pages written from now on.
ALTER TABLE wallet_orders SET (fillfactor = 80);
ALTER TABLE reservations SET (fillfactor = 85);
ALTER TABLE sandbox_card_authorizations SET (fillfactor = 85);
ALTER TABLE chain_sends SET (fillfactor = 85);
