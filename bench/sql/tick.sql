-- pgbench custom script: one committed Ductor tick in raw SQL, the ceiling for `bench/run.sh ticks`.
--
-- What one low-contention tick of TickBench does, statement for statement, in one transaction: read the run
-- row, read its pending inbox, the versioned UPDATE of the run row, two history rows (the finished node
-- and the next one dispatched), the outbox row (the next task), the inbox row marked consumed, and the
-- claimed wakeup acked (deleted by id and lease token). The new node_states / state_checksum are the ones
-- read (sent back whole, so the UPDATE carries as many bytes as a real tick's); no JSON is computed.
--
-- Prepared by TickBench (see docs/benchmarks.md): bench_tick_run(idx, run_id) lists copies of the benchmark's
-- runs, each with enough pending inbox rows whose task_id names a claimed WAKEUP row (lease token
-- ...b0b0) to ack. -D per=<runs per client>: client c picks random runs from its own idx range, as each
-- TickBench thread owns its own runs, so no two clients touch one run and every UPDATE matches its row.
-- Run with -M prepared (variables become bind parameters, as in JDBC). pgbench takes every colon in the text,
-- string literals included, for a variable: literal colons are written E'\x3a'.

\set idx :client_id * :per + random(1, :per)
BEGIN;
SELECT r.run_id AS rid, r.tenant AS tenant, r.workflow_name AS wf, r.workflow_revision AS rev, r.tier AS tier,
       CAST(r.node_states AS text) AS ns, r.last_transition_seq AS seq, r.state_checksum AS cs,
       r.db_record_version AS v, CAST(r.input AS text) AS inp, r.created_at AS created
  FROM eec_workflow_run r JOIN bench_tick_run b ON b.run_id = r.run_id
 WHERE b.idx = :idx
\gset
SELECT id AS inbox_id, kind AS ikind, node_id AS inode, attempt AS iattempt, task_id AS wid,
       CAST(payload AS text) AS ipayload
  FROM eec_run_inbox
 WHERE run_id = :rid AND consumed_at IS NULL
 ORDER BY id LIMIT 1
\gset
\set v1 :v + 1
\set s1 :seq + 1
\set s2 :seq + 2
UPDATE eec_workflow_run
   SET created_at = CAST(:created AS timestamptz), db_record_version = :v1, idempotency_key = NULL,
       input = CAST(:inp AS jsonb), last_transition_seq = :s2, node_states = CAST(:ns AS jsonb), output = NULL,
       state_checksum = :cs, status = 'RUNNING', tenant = :tenant, tier = :tier, updated_at = now(),
       workflow_name = :wf, workflow_revision = :rev
 WHERE run_id = :rid AND db_record_version = :v;
INSERT INTO eec_run_transition (at, cause, from_state, node_id, run_id, seq, to_state)
VALUES (now(), 'attempt 1 completed', 'RUNNING', 'n0', :rid, :s1, 'SUCCEEDED');
INSERT INTO eec_run_transition (at, cause, from_state, node_id, run_id, seq, to_state)
VALUES (now(), E'dispatched attempt 1 to \'ext\x3abench-sql\'', 'PENDING', 'n1', :rid, :s2, 'RUNNING');
INSERT INTO eec_queue_item (kind, tenant, tier, run_id, node_id, attempt, handler, pool, task_key,
                            payload, requeue_count, available_at, created_at)
VALUES ('TASK', :tenant, :tier, :rid, 'n1', 1, E'ext\x3abench-sql', NULL,
        E'task\x3a' || CAST(:rid AS text) || E'\x3an1-' || CAST(:s2 AS text) || E'\x3a1', CAST(:inp AS jsonb), 0, now(), now())
ON CONFLICT (task_key) WHERE task_key IS NOT NULL DO NOTHING;
UPDATE eec_run_inbox SET consumed_at = now() WHERE id IN (:inbox_id);
DELETE FROM eec_queue_item WHERE id = :wid AND lease_token = '00000000-0000-0000-0000-00000000b0b0';
END;
