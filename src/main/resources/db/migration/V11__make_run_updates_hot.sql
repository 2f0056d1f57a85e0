-- Every commit of a run is an UPDATE of its row, three or more a run. While ix_workflow_run_running was keyed on
-- updated_at, which every commit changes, no such UPDATE could be HOT (heap-only: the new row version on the same
-- page, no new entry in any index), so each wrote an entry into all five indexes of the table. The watchdog now pages
-- the RUNNING runs by (created_at, run_id), which never change, and filters on updated_at; only the commits that
-- change status (a run's first and last) still touch the indexes. HOT needs room on the row's page: fillfactor 80
-- leaves a fifth of each new page free for the next versions of its rows (pages written before keep theirs full).
CREATE INDEX ix_workflow_run_running_by_created ON eec_workflow_run (created_at, run_id) WHERE status = 'RUNNING';
DROP INDEX ix_workflow_run_running;
ALTER TABLE eec_workflow_run SET (fillfactor = 80);
