-- A run's tags: the business data it is found by (POST /workflows/{name}/runs {tags: {"customer": "c-42"}}, then
-- GET /runs?tag=customer:c-42). Set once, when the run is inserted, and never updated, so a tick's UPDATE leaves the
-- index untouched and stays HOT (V11). NULL when a start sends none, and the index is partial on that: a start without
-- tags writes no entry into it. jsonb_path_ops indexes only what containment (@>) needs: one hashed entry per
-- key/value pair, a smaller index than the default jsonb_ops, which also serves key-exists operators nobody asks.
ALTER TABLE eec_workflow_run ADD COLUMN tags jsonb;
CREATE INDEX ix_workflow_run_tags ON eec_workflow_run USING gin (tags jsonb_path_ops) WHERE tags IS NOT NULL;
