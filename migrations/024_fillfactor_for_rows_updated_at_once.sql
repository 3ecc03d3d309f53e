-- More room per page for the two tables whose every row changes soon after it is written: a
-- card order's delivery transfer (PENDING, then COMPLETED about a second later) and the order
-- itself (PROCESSING, then COMPLETE). A worker batch updates the rows of many pages in one
-- statement, and a page can take only as many new versions as it has free space: the old
-- versions are not pruned until that transaction has ended. At 85 and 80 (023, 022) most of
-- those updates find no room and are not HOT; at 55 and 65, most are. Each update that is not HOT writes a new entry into every
-- index of the table: four for transfers, two for wallet orders. Applies to pages written from
-- now on; the space a new version took is pruned back into the page once it is the only one.
ALTER TABLE transfers SET (fillfactor = 55);
ALTER TABLE wallet_orders SET (fillfactor = 65);
