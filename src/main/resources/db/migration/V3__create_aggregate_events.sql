-- Event-sourced aggregates (pools, rules): the events are the truth, appended with an expected version.
-- UNIQUE (aggregate_id, version) makes two appends at one version impossible: one wins, the other conflicts.
CREATE TABLE eec_aggregate_event (
    id             bigserial   PRIMARY KEY,
    aggregate_type text        NOT NULL,
    tenant         text        NOT NULL,
    name           text        NOT NULL,
    aggregate_id   text        NOT NULL,
    version        bigint      NOT NULL,
    event_type     text        NOT NULL,
    payload        jsonb       NOT NULL,
    recorded_by    text,
    recorded_at    timestamptz NOT NULL,
    CONSTRAINT uq_aggregate_event_version UNIQUE (aggregate_id, version),
    CONSTRAINT ck_aggregate_event_version CHECK (version >= 1)
);
CREATE INDEX ix_aggregate_event_type ON eec_aggregate_event (aggregate_type, tenant, name);
