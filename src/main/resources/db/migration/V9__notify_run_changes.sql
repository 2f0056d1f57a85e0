-- Live updates for the console and API clients (GET /api/v1/runs/{id}/events): every statement that inserts or
-- updates runs sends ONE notification on channel ductor_run_changed, in the committing transaction, so PostgreSQL
-- delivers it to every pod's listener when (and only if) the transaction commits. The payload lists the changed
-- runs as run_id:db_record_version, comma-separated; a statement touching more runs than fit in one payload
-- (8000 bytes) sends one notification per 120 of them (at most 56 bytes each: 6,840 bytes). Statement-level with a
-- transition table: a multi-row INSERT or UPDATE costs one notify, never one per row.
CREATE FUNCTION eec_notify_run_changed() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_notify('ductor_run_changed', chunk.payload)
       FROM (SELECT string_agg(c.run_id::text || ':' || c.db_record_version, ',') AS payload
               FROM (SELECT run_id, db_record_version, (row_number() OVER () - 1) / 120 AS part FROM changed) c
              GROUP BY c.part) chunk;
    RETURN NULL;
END
$$;

-- A trigger with a transition table serves one event only, hence two.
CREATE TRIGGER trg_workflow_run_inserted_notify
    AFTER INSERT ON eec_workflow_run
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION eec_notify_run_changed();

CREATE TRIGGER trg_workflow_run_updated_notify
    AFTER UPDATE ON eec_workflow_run
    REFERENCING NEW TABLE AS changed
    FOR EACH STATEMENT EXECUTE FUNCTION eec_notify_run_changed();
