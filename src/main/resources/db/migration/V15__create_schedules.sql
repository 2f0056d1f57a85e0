-- Schedules: cron-timed run starts.

-- The schedules' read model and firing state: one row per schedule. The definition part (definition, paused,
-- workflow) is projected from the schedule's event stream (eec_aggregate_event, type 'schedule') in the transaction
-- that appends, and moved only with UPDATE ... WHERE db_record_version = <the version it was decided on>.
-- The firing part is the scheduler's: fired_through is the latest fire time handled (started, or skipped by catchUp or
-- overlap); every fire time after it is still to come. A pass moves it with
-- UPDATE ... WHERE fired_through = <what it read> AND db_record_version = <what it read>, in the transaction that starts
-- the runs, so of two pods on one fire time exactly one starts it.
CREATE TABLE eec_schedule (
    tenant            text        NOT NULL,
    name              text        NOT NULL,
    workflow_name     text        NOT NULL,
    definition        jsonb       NOT NULL,
    paused            boolean     NOT NULL,
    db_record_version bigint      NOT NULL,
    updated_at        timestamptz NOT NULL,
    fired_through     timestamptz NOT NULL,
    next_fire_at      timestamptz,
    last_fire_at      timestamptz,
    last_run_id       uuid,
    last_error        text,
    PRIMARY KEY (tenant, name),
    CONSTRAINT ck_schedule_version CHECK (db_record_version >= 1)
);
-- A pass looks up the schedules that are due, across tenants.
CREATE INDEX ix_schedule_due ON eec_schedule (next_fire_at) WHERE NOT paused;
