-- Bulk actions (POST /api/v1/bulk-actions): a durable job and the runs it matched, each with the version it had when
-- matched. Pods claim pending items in batches (FOR UPDATE SKIP LOCKED, then a short claim so a pod that dies mid-batch
-- hands its items on) and act on each run by its own versioned commit; a run whose version moved since is skipped.
CREATE TABLE eec_bulk_action (
    bulk_id     uuid        PRIMARY KEY,
    tenant      text        NOT NULL,
    action      text        NOT NULL,
    filter      jsonb       NOT NULL,
    to_revision text,
    status      text        NOT NULL,
    matched     integer     NOT NULL,
    done        integer     NOT NULL DEFAULT 0,
    skipped     integer     NOT NULL DEFAULT 0,
    failed      integer     NOT NULL DEFAULT 0,
    created_by  text        NOT NULL,
    created_at  timestamptz NOT NULL,
    updated_at  timestamptz NOT NULL,
    CONSTRAINT ck_bulk_action_action CHECK (action IN ('cancel', 'reset', 'retry-dead-letters')),
    CONSTRAINT ck_bulk_action_status CHECK (status IN ('RUNNING', 'SUCCEEDED', 'CANCELLED'))
);

CREATE TABLE eec_bulk_action_item (
    bulk_id          uuid        NOT NULL REFERENCES eec_bulk_action (bulk_id) ON DELETE CASCADE,
    run_id           uuid        NOT NULL,
    expected_version bigint      NOT NULL,
    state            text        NOT NULL DEFAULT 'PENDING',
    claimed_until    timestamptz,
    detail           text,
    PRIMARY KEY (bulk_id, run_id),
    CONSTRAINT ck_bulk_action_item_state CHECK (state IN ('PENDING', 'DONE', 'SKIPPED', 'FAILED'))
);
-- The claim scans only what is left to do.
CREATE INDEX ix_bulk_action_item_pending ON eec_bulk_action_item (bulk_id, run_id) WHERE state = 'PENDING';
