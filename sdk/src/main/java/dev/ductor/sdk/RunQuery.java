package dev.ductor.sdk;

/** Filters of {@code GET /runs}: all optional; {@code cursor} is the previous page's {@code nextCursor}. */
public record RunQuery(String workflow, String status, Integer limit, String cursor) {

    public static RunQuery all() {
        return new RunQuery(null, null, null, null);
    }

    public RunQuery workflow(String workflow) {
        return new RunQuery(workflow, status, limit, cursor);
    }

    public RunQuery status(String status) {
        return new RunQuery(workflow, status, limit, cursor);
    }

    public RunQuery limit(int limit) {
        return new RunQuery(workflow, status, limit, cursor);
    }

    public RunQuery cursor(String cursor) {
        return new RunQuery(workflow, status, limit, cursor);
    }
}
