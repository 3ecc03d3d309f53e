-- Room on each page for the new versions of rows that change in place, so those updates stay
-- HOT (heap-only: no new index entries, and the old version is pruned from the page without a
-- vacuum). A HOT update needs free space on the row's own page; filled to 100%, these tables
-- leave most status changes, reservation uses and sandbox authorization changes not HOT, each
-- writing a new entry into every index of the table. None of
-- these updates changes an indexed column. Applies to pages written from now on.
ALTER TABLE wallet_orders SET (fillfactor = 80);
ALTER TABLE reservations SET (fillfactor = 85);
ALTER TABLE sandbox_card_authorizations SET (fillfactor = 85);
ALTER TABLE chain_sends SET (fillfactor = 85);
