package dev.ductor.error;

/** The event stream of a run is not served by this deployment ({@code ductor.live.enabled=false}). */
public class LiveUpdatesOffException extends DuctorException {

    public LiveUpdatesOffException() {
        super("Live run updates are turned off on this server (ductor.live.enabled=false): poll GET /api/v1/runs/{runId} instead");
    }

    @Override
    public int status() {
        return 503;
    }

    @Override
    public String type() {
        return "live-updates-off";
    }

    @Override
    public String title() {
        return "Live updates are off";
    }
}
