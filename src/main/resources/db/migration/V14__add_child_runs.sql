-- A child run started by a parent's `workflow` node: which run, node and attempt it answers to. Set once, when the child
-- is inserted, in the parent's commit; read when the child ends (its end is the parent node's result) and to list a
-- run's children.
ALTER TABLE eec_workflow_run
    ADD COLUMN parent_run_id  uuid,
    ADD COLUMN parent_node    text,
    ADD COLUMN parent_attempt integer;
CREATE INDEX ix_workflow_run_parent ON eec_workflow_run (parent_run_id, parent_node, parent_attempt)
    WHERE parent_run_id IS NOT NULL;
