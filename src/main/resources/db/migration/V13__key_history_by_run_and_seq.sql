-- A history row is named by (run_id, seq), the key the contract gives it and every reader uses; nothing reads the
-- bigserial id. It cost every transition, eight a three-step run, a sequence call and an entry in a second unique
-- index, for nothing. The row keeps UNIQUE (run_id, seq) as its key (and as the identity logical replication uses),
-- so this needs no index build on a large table.
ALTER TABLE eec_run_transition DROP CONSTRAINT eec_run_transition_pkey;
ALTER TABLE eec_run_transition DROP COLUMN id;
ALTER TABLE eec_run_transition REPLICA IDENTITY USING INDEX uq_run_transition_seq;
