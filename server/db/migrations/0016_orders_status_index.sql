-- No query looks orders up by status alone (lists and reports go by member or merchant and time), and the index made
-- every status change of an order (a pay's acknowledgement, its session's end) write a new entry in each of the
-- order's indexes: without it those updates are HOT (docs/performance.md, "An order's status change is HOT").
DROP INDEX "orders_status_idx";
