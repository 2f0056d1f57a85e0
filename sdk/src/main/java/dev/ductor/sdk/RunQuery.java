package dev.ductor.sdk;

import java.util.ArrayList;
import java.util.List;

/**
 * Filters of {@code GET /runs}: all optional; {@code cursor} is the previous page's {@code nextCursor}; {@code tags} are
 * {@code key:value} each, and a run must carry all of them.
 */
public record RunQuery(String workflow, String status, Integer limit, String cursor, List<String> tags) {

    public RunQuery {
        tags = tags == null ? List.of() : List.copyOf(tags);
    }

    public RunQuery(String workflow, String status, Integer limit, String cursor) {
        this(workflow, status, limit, cursor, List.of());
    }

    public static RunQuery all() {
        return new RunQuery(null, null, null, null);
    }

    public RunQuery workflow(String workflow) {
        return new RunQuery(workflow, status, limit, cursor, tags);
    }

    public RunQuery status(String status) {
        return new RunQuery(workflow, status, limit, cursor, tags);
    }

    public RunQuery limit(int limit) {
        return new RunQuery(workflow, status, limit, cursor, tags);
    }

    public RunQuery cursor(String cursor) {
        return new RunQuery(workflow, status, limit, cursor, tags);
    }

    /** Runs carrying this tag too ({@code tag("customer", "c-42")}). */
    public RunQuery tag(String key, String value) {
        List<String> more = new ArrayList<>(tags);
        more.add(key + ":" + value);
        return new RunQuery(workflow, status, limit, cursor, more);
    }
}
