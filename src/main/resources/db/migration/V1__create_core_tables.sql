-- Ductor's durable core. The eec_ prefix marks the Enterprise Eventing Core tables.

-- A workflow definition's current revision, edited through If-Match on db_record_version.
CREATE TABLE eec_workflow_definition (
    id                uuid        PRIMARY KEY,
    tenant            text        NOT NULL,
    name              text        NOT NULL,
    revision          integer     NOT NULL,
    definition        jsonb       NOT NULL,
    db_record_version bigint      NOT NULL DEFAULT 0,
    created_at        timestamptz NOT NULL,
    updated_at        timestamptz NOT NULL,
    CONSTRAINT uq_workflow_definition_name UNIQUE (tenant, name)
);

-- Every accepted revision, immutable: runs pin the one they started on.
CREATE TABLE eec_workflow_revision (
    tenant     text        NOT NULL,
    name       text        NOT NULL,
    revision   integer     NOT NULL,
    definition jsonb       NOT NULL,
    created_at timestamptz NOT NULL,
    PRIMARY KEY (tenant, name, revision)
);

CREATE TABLE eec_workflow_run (
    run_id              uuid        PRIMARY KEY,
    tenant              text        NOT NULL,
    workflow_name       text        NOT NULL,
    workflow_revision   integer     NOT NULL,
    status              text        NOT NULL,
    tier                text        NOT NULL DEFAULT 'standard',
    node_states         jsonb       NOT NULL,
    last_transition_seq bigint      NOT NULL,
    state_checksum      text        NOT NULL,
    db_record_version   bigint      NOT NULL DEFAULT 0,
    input               jsonb,
    output              jsonb,
    idempotency_key     text,
    created_at          timestamptz NOT NULL,
    updated_at          timestamptz NOT NULL,
    CONSTRAINT ck_workflow_run_status CHECK (status IN ('RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'))
);
-- An idempotent start is enforced here, not by a read-then-insert.
CREATE UNIQUE INDEX uq_workflow_run_idempotency
    ON eec_workflow_run (tenant, workflow_name, idempotency_key) WHERE idempotency_key IS NOT NULL;
-- Listing by tenant, newest first, with a keyset cursor.
CREATE INDEX ix_workflow_run_tenant_created ON eec_workflow_run (tenant, created_at DESC, run_id DESC);
-- The watchdog scans only live runs, oldest progress first.
CREATE INDEX ix_workflow_run_running ON eec_workflow_run (updated_at, run_id) WHERE status = 'RUNNING';

-- The run's history: one row per transition, gap-free per run.
CREATE TABLE eec_run_transition (
    id        bigserial   PRIMARY KEY,
    run_id    uuid        NOT NULL REFERENCES eec_workflow_run (run_id),
    seq       bigint      NOT NULL,
    at        timestamptz NOT NULL,
    node_id   text,
    from_state text,
    to_state  text        NOT NULL,
    cause     text        NOT NULL,
    CONSTRAINT uq_run_transition_seq UNIQUE (run_id, seq)
);

-- What reaches a run from outside (task results, signals, operator commands), consumed by a tick.
-- dedup_key makes a repeated delivery a no-op: one result per node attempt, one signal per key.
CREATE TABLE eec_run_inbox (
    id          bigserial   PRIMARY KEY,
    run_id      uuid        NOT NULL REFERENCES eec_workflow_run (run_id),
    kind        text        NOT NULL,
    dedup_key   text        NOT NULL,
    node_id     text,
    attempt     integer,
    task_id     bigint,
    payload     jsonb,
    created_at  timestamptz NOT NULL,
    consumed_at timestamptz,
    CONSTRAINT uq_run_inbox_dedup UNIQUE (run_id, dedup_key)
);
CREATE INDEX ix_run_inbox_pending ON eec_run_inbox (run_id, id) WHERE consumed_at IS NULL;
-- A worker repeating a completion names only its task: find what it reported the first time.
CREATE INDEX ix_run_inbox_task ON eec_run_inbox (task_id) WHERE task_id IS NOT NULL;

-- The queue: coordinator wakeups (and timers) and step tasks. available_at is both the due time and,
-- once claimed, the lease expiry (a claim pushes it forward), so one index serves every claim.
CREATE TABLE eec_queue_item (
    id            bigserial   PRIMARY KEY,
    kind          text        NOT NULL,
    tenant        text        NOT NULL,
    tier          text        NOT NULL DEFAULT 'standard',
    run_id        uuid        NOT NULL,
    node_id       text,
    attempt       integer     NOT NULL DEFAULT 0,
    handler       text,
    pool          text,
    task_key      text,
    payload       jsonb,
    requeue_count integer     NOT NULL DEFAULT 0,
    available_at  timestamptz NOT NULL,
    lease_token   uuid,
    lease_owner   text,
    deliveries    integer     NOT NULL DEFAULT 0,
    created_at    timestamptz NOT NULL,
    CONSTRAINT ck_queue_item_kind CHECK (kind IN ('WAKEUP', 'TIMER', 'TASK'))
);
-- Deduplication by key for the items that want it (tasks, timers, requeues); plain wakeups have no key.
CREATE UNIQUE INDEX uq_queue_item_task_key ON eec_queue_item (task_key) WHERE task_key IS NOT NULL;
CREATE INDEX ix_queue_item_claim ON eec_queue_item (kind, available_at, id);
CREATE INDEX ix_queue_item_run ON eec_queue_item (run_id);
