-- Retention (run/retention) deletes a finished run past its period with everything it owns, its history included. The
-- history stays append-only for everyone else: a DELETE of a transition passes only in a transaction that declared
-- itself retention's (set_config('ductor.retention', 'purge', true), local to that transaction), and only while the
-- transition's run is finished, re-read at that moment (retention holds the run row locked). An UPDATE or TRUNCATE is
-- refused as before, and the aggregates' events keep V7's trigger unchanged: they are never deleted.
CREATE FUNCTION eec_refuse_history_change_but_retention() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'DELETE' AND current_setting('ductor.retention', true) = 'purge'
       AND EXISTS (SELECT 1 FROM eec_workflow_run r
                    WHERE r.run_id = OLD.run_id AND r.status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')) THEN
        RETURN OLD;
    END IF;
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'history rows are never changed or removed, but by retention once their run has finished';
END
$$;

DROP TRIGGER tr_run_transition_append_only ON eec_run_transition;
CREATE TRIGGER tr_run_transition_append_only
    BEFORE UPDATE OR DELETE ON eec_run_transition
    FOR EACH ROW EXECUTE FUNCTION eec_refuse_history_change_but_retention();
