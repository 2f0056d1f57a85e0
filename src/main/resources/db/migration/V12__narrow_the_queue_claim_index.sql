-- ix_queue_item_claim (kind, available_at, id) served two scans: the coordinator's claim of due wakeups and timers
-- and the lease reaper's of expired task leases. Because its last column is id, the planner could also use it for
-- a lookup by id alone, reading the whole index for each id. It chose that plan for the fair claim's row locks and
-- UPDATE (id = c.id, id = ANY(...)) when the queue table's statistics were stale, which they usually are: the table
-- empties and refills between two autovacuum passes. auto_explain under chain3 showed 3,475 buffers for one claim
-- of 8 tasks, and each claim slower as the backlog grew, so starts outran steps for good. Partial indexes are usable
-- only by a query whose WHERE implies their predicate, so neither can serve a lookup by id again: every such
-- lookup goes through the primary key.
CREATE INDEX ix_queue_item_expired_leases ON eec_queue_item (available_at, id) WHERE kind = 'TASK' AND lease_token IS NOT NULL;
DROP INDEX ix_queue_item_claim;
CREATE INDEX ix_queue_item_claim ON eec_queue_item (kind, available_at, id) WHERE kind IN ('WAKEUP', 'TIMER');
