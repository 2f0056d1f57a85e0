-- A run's transitions and the aggregates' events are history: rows are only ever appended. Nothing in Ductor
-- updates or deletes them; from here on the database refuses it too, whoever asks (a bug, a script, a console).
CREATE FUNCTION eec_refuse_history_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'history rows are never changed or removed; append a new row instead';
END
$$;

CREATE TRIGGER tr_run_transition_append_only
    BEFORE UPDATE OR DELETE ON eec_run_transition
    FOR EACH ROW EXECUTE FUNCTION eec_refuse_history_change();
CREATE TRIGGER tr_run_transition_no_truncate
    BEFORE TRUNCATE ON eec_run_transition
    FOR EACH STATEMENT EXECUTE FUNCTION eec_refuse_history_change();

CREATE TRIGGER tr_aggregate_event_append_only
    BEFORE UPDATE OR DELETE ON eec_aggregate_event
    FOR EACH ROW EXECUTE FUNCTION eec_refuse_history_change();
CREATE TRIGGER tr_aggregate_event_no_truncate
    BEFORE TRUNCATE ON eec_aggregate_event
    FOR EACH STATEMENT EXECUTE FUNCTION eec_refuse_history_change();
