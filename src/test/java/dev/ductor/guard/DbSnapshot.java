package dev.ductor.guard;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Row counts and a content hash of every {@code eec_*} table, for "the database is unchanged". Discovered from the
 * catalog, so tables added later (pools, rules, events) are covered without editing this list.
 */
final class DbSnapshot {

    /** The tables the brief names; a snapshot that misses one of them is refused rather than silently passing. */
    static final List<String> REQUIRED = List.of("eec_workflow_definition", "eec_workflow_revision", "eec_workflow_run",
            "eec_run_transition", "eec_run_inbox", "eec_queue_item");

    private DbSnapshot() {
    }

    static Map<String, String> take(DataSource dataSource) {
        Map<String, String> snapshot = new TreeMap<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            List<String> tables = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery("SELECT table_name FROM information_schema.tables"
                    + " WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name LIKE 'eec\\_%'")) {
                while (rs.next()) {
                    tables.add(rs.getString(1));
                }
            }
            for (String table : tables) {
                try (ResultSet rs = statement.executeQuery("SELECT count(*), coalesce(md5(string_agg(md5(CAST(t AS text)), ','"
                        + " ORDER BY md5(CAST(t AS text)))), '-') FROM \"" + table + "\" t")) {
                    rs.next();
                    snapshot.put(table, "rows=" + rs.getLong(1) + " md5=" + rs.getString(2));
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not snapshot the database", e);
        }
        List<String> missing = REQUIRED.stream().filter(t -> !snapshot.containsKey(t)).toList();
        if (!missing.isEmpty()) {
            throw new AssertionError("the snapshot found no table " + missing + " (tables: " + snapshot.keySet() + ")");
        }
        return snapshot;
    }

    /** Empty when equal; otherwise one line per table that differs. */
    static String diff(Map<String, String> before, Map<String, String> after) {
        StringBuilder out = new StringBuilder();
        TreeMap<String, String> all = new TreeMap<>(before);
        after.forEach(all::putIfAbsent);
        for (String table : all.keySet()) {
            String a = before.get(table);
            String b = after.get(table);
            if (a == null || !a.equals(b)) {
                out.append("\n  ").append(table).append(": before ").append(a).append(", after ").append(b);
            }
        }
        return out.toString();
    }
}
