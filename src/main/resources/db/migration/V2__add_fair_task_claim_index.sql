-- The fair task claim walks (tier, tenant) flows of unclaimed tasks and takes the oldest due ones of each.
-- Partial: claimed tasks (lease_token set), wakeups and timers never enter it, so it stays small however
-- many timers are pending.
CREATE INDEX ix_queue_item_fair_tasks ON eec_queue_item (tier, tenant, available_at, id)
    WHERE kind = 'TASK' AND lease_token IS NULL;
