-- Rules and event ingestion.

-- The rules' read model for matching: one row per rule, projected from its event stream
-- (eec_aggregate_event, type 'rule') in the transaction that appends. db_record_version is the stream's
-- version the row reflects; the projection is only ever moved with
-- UPDATE ... WHERE tenant = ? AND name = ? AND db_record_version = <the version it was decided on>.
CREATE TABLE eec_rule (
    tenant            text        NOT NULL,
    name              text        NOT NULL,
    on_type           text        NOT NULL,
    enabled           boolean     NOT NULL,
    definition        jsonb       NOT NULL,
    db_record_version bigint      NOT NULL,
    updated_at        timestamptz NOT NULL,
    PRIMARY KEY (tenant, name),
    CONSTRAINT ck_rule_version CHECK (db_record_version >= 1)
);
-- An incoming event looks up its rules by type.
CREATE INDEX ix_rule_on_type ON eec_rule (tenant, on_type);

-- Every accepted event, once per (tenant, idempotency_key): the unique constraint is what makes a re-sent
-- event a no-op, and outcome keeps what the first delivery did (runs started and signalled) to answer repeats.
CREATE TABLE eec_event (
    event_id        uuid        PRIMARY KEY,
    tenant          text        NOT NULL,
    idempotency_key text        NOT NULL,
    event_type      text        NOT NULL,
    event_key       text,
    payload         jsonb,
    outcome         jsonb,
    received_at     timestamptz NOT NULL,
    CONSTRAINT uq_event_idempotency UNIQUE (tenant, idempotency_key)
);

-- Correlation: a signal rule reaches the runs whose correlation_key equals the event's key. Set from the
-- start body's correlationKey, or, for a run a rule started, from the key of the event that started it.
ALTER TABLE eec_workflow_run ADD COLUMN correlation_key text;
CREATE INDEX ix_workflow_run_correlation ON eec_workflow_run (tenant, correlation_key) WHERE correlation_key IS NOT NULL;
