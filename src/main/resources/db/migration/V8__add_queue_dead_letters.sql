-- Poison runs. A coordinator item (wakeup or timer) whose run's tick failed with an error (not a version conflict,
-- not a database outage) counts that on itself: failed_deliveries and the last error ride on the item, never on the
-- run row, which may be the very thing that cannot be read. After ductor.coordinator.max-failed-deliveries the run's
-- items are dead-lettered: kept, with dead_lettered_at set and available_at = 'infinity', so no claim (which orders
-- by available_at) ever reaches them again, until an operator re-queues them (POST /api/v1/runs/{id}/dead-letters/retry).
ALTER TABLE eec_queue_item
    ADD COLUMN failed_deliveries integer NOT NULL DEFAULT 0,
    ADD COLUMN last_error        text,
    ADD COLUMN dead_lettered_at  timestamptz;

-- The operator's list (a tenant's parked runs, oldest first) and the per-run look-ups of GET /runs/{id}.
CREATE INDEX ix_queue_item_dead_letter ON eec_queue_item (tenant, dead_lettered_at, run_id) WHERE dead_lettered_at IS NOT NULL;
