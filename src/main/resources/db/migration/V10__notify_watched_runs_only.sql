-- Live updates cost nothing while nobody watches. A transaction that NOTIFYs takes PostgreSQL's notification queue
-- lock at commit and holds it through its WAL flush, so notifying commits are serialized; V9 notified for every run
-- of every commit. Now a pod that streams a run (GET /api/v1/runs/{id}/events) records that it watches it here, and
-- the trigger notifies only for watched runs. UNLOGGED: no WAL for a table of hints that a crash may empty (the pods
-- register their watches again when their LISTEN connection comes back). A pod refreshes its rows every minute;
-- rows of a pod that died expire.
CREATE UNLOGGED TABLE eec_run_watch (
    run_id     uuid        NOT NULL,
    pod        text        NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (run_id, pod)
);

CREATE OR REPLACE FUNCTION eec_notify_run_changed() RETURNS trigger
    LANGUAGE plpgsql AS
$$
BEGIN
    PERFORM pg_notify('ductor_run_changed', chunk.payload)
       FROM (SELECT string_agg(c.run_id::text || ':' || c.db_record_version, ',') AS payload
               FROM (SELECT w.run_id, w.db_record_version, (row_number() OVER () - 1) / 120 AS part
                       FROM changed w
                      WHERE EXISTS (SELECT 1 FROM eec_run_watch r
                                     WHERE r.run_id = w.run_id AND r.expires_at > now())) c
              GROUP BY c.part) chunk;
    RETURN NULL;
END
$$;
