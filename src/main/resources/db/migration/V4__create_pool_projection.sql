-- Pools: a named limit on how many tasks with "pool": "<name>" may be leased at once across the whole fleet.

-- The pools' read model for the task claim: one row per pool, projected from its event stream
-- (eec_aggregate_event, type 'pool') in the transaction that appends. The events are the truth; this row is
-- derived. db_record_version is the stream version the row reflects; the row is only ever moved with
-- UPDATE ... WHERE tenant = ? AND name = ? AND db_record_version = <the version it was decided on>.
-- A task claim locks the rows of the pools it may take tasks from (FOR UPDATE, in (tenant, name) order), so
-- claims of one pool serialise on its row and a claim never sees a capacity half-changed.
CREATE TABLE eec_pool (
    tenant            text        NOT NULL,
    name              text        NOT NULL,
    capacity          integer     NOT NULL,
    paused            boolean     NOT NULL,
    db_record_version bigint      NOT NULL,
    updated_at        timestamptz NOT NULL,
    PRIMARY KEY (tenant, name),
    CONSTRAINT ck_pool_capacity CHECK (capacity BETWEEN 0 AND 100000),
    CONSTRAINT ck_pool_version CHECK (db_record_version >= 1)
);

-- The fair claim's index now holds only unpooled tasks: a saturated or paused pool's backlog, however long,
-- is never walked by claims that cannot take it. Same name and columns as V2, one more predicate.
DROP INDEX ix_queue_item_fair_tasks;
CREATE INDEX ix_queue_item_fair_tasks ON eec_queue_item (tier, tenant, available_at, id)
    WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NULL;

-- Unclaimed pooled tasks, walked per pool (a skip scan over (tenant, pool), then per tier) by the claim.
CREATE INDEX ix_queue_item_pooled_tasks ON eec_queue_item (tenant, pool, tier, available_at, id)
    WHERE kind = 'TASK' AND lease_token IS NULL AND pool IS NOT NULL;

-- Leased pooled tasks, counted per pool against its capacity at every claim of it.
CREATE INDEX ix_queue_item_pool_leases ON eec_queue_item (tenant, pool)
    WHERE kind = 'TASK' AND lease_token IS NOT NULL AND pool IS NOT NULL;
