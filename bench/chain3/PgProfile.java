// Profiles PostgreSQL during the chain3 benchmark's measured phase, and only then: pg_stat_statements is reset
// when the phase starts and its top 25 statements are written when it ends; pg_stat_activity is sampled every
// 200 ms in between (counts per state and wait event: idle-in-transaction sessions and lock waits show here),
// with a summary at the end. The phase is bracketed by a tiny file protocol with the Driver (it writes "warm",
// this program resets and answers "go"; it writes "done"), so the profile covers exactly the measured runs and
// the two programs stay separate (each source-launched file is its own program).
//
// usage: java -cp <pgjdbc.jar> bench/chain3/PgProfile.java --jdbc-url URL --user U --password PW
//          --phase-file F --pgss-out FILE --activity-out FILE [--interval-ms 200] [--timeout-s 3600]
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.LocalTime;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

public class PgProfile {
    static final String ACTIVITY = """
            SELECT coalesce(state, '?'), coalesce(wait_event_type, '-'), coalesce(wait_event, '-'),
                   left(regexp_replace(coalesce(query, ''), '\\s+', ' ', 'g'), 120),
                   coalesce(extract(epoch FROM now() - xact_start) * 1000, 0)
              FROM pg_stat_activity
             WHERE backend_type = 'client backend' AND datname = current_database() AND pid <> pg_backend_pid()
               AND coalesce(application_name, '') NOT IN ('chain3-driver', 'chain3-profile')
            """;
    static final String TOP = """
            SELECT s.calls, s.total_exec_time, s.mean_exec_time, s.total_plan_time, s.mean_plan_time, s.rows,
                   coalesce(d.datname, '?'), left(regexp_replace(s.query, '\\s+', ' ', 'g'), 300)
              FROM pg_stat_statements s LEFT JOIN pg_database d ON d.oid = s.dbid
             ORDER BY s.total_exec_time + s.total_plan_time DESC LIMIT 25
            """;
    static final String TOTALS = "SELECT count(*), coalesce(sum(calls), 0), coalesce(sum(total_exec_time), 0),"
            + " coalesce(sum(total_plan_time), 0) FROM pg_stat_statements";
    // counters whose deltas over the phase say how much work the database did (commits, rows, WAL flushes)
    static final String COUNTERS = """
            SELECT d.xact_commit, d.xact_rollback, d.tup_returned, d.tup_fetched, d.tup_inserted, d.tup_updated,
                   d.tup_deleted, d.blks_hit, d.blks_read, d.deadlocks, d.conflicts,
                   w.wal_records, w.wal_fpi, w.wal_bytes, w.wal_write, w.wal_sync,
                   (SELECT coalesce(sum(t.n_tup_hot_upd), 0) FROM pg_stat_user_tables t)
              FROM pg_stat_database d, pg_stat_wal w WHERE d.datname = current_database()
            """;
    static final String[] COUNTER_NAMES = {"xact_commit", "xact_rollback", "tup_returned", "tup_fetched",
        "tup_inserted", "tup_updated", "tup_deleted", "blks_hit", "blks_read", "deadlocks", "conflicts",
        "wal_records", "wal_fpi", "wal_bytes", "wal_write", "wal_sync", "tup_hot_updated"};

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        Path phase = Path.of(o.get("phase-file"));
        long interval = Long.parseLong(o.getOrDefault("interval-ms", "200"));
        long deadline = System.nanoTime() + Long.parseLong(o.getOrDefault("timeout-s", "3600")) * 1_000_000_000L;
        Properties p = new Properties();
        p.setProperty("user", o.get("user"));
        p.setProperty("password", o.get("password"));
        p.setProperty("ApplicationName", "chain3-profile");
        p.setProperty("connectTimeout", "10");
        p.setProperty("socketTimeout", "60");
        try (Connection c = DriverManager.getConnection(o.get("jdbc-url"), p);
                Statement s = c.createStatement();
                BufferedWriter act = Files.newBufferedWriter(Path.of(o.get("activity-out")), StandardCharsets.UTF_8)) {
            while (!state(phase).equals("warm")) {
                if (System.nanoTime() > deadline) {
                    System.err.println("profile: the measured phase never started");
                    return;
                }
                Thread.sleep(10);
            }
            String resetNote = "";
            try {
                s.execute("SELECT pg_stat_statements_reset()");
            } catch (SQLException e) {
                resetNote = "pg_stat_statements_reset() failed: " + e.getMessage() + "\n";
            }
            long[] before = counters(s);
            answer(phase, "go");
            long t0 = System.nanoTime();
            act.write("# pg_stat_activity of " + o.get("jdbc-url") + " every " + interval
                    + " ms during the measured phase (client backends, the benchmark's own sessions left out)\n");
            act.write("# time total [state|wait_event_type|wait_event=count ...] max_xact_ms\n");
            Map<String, long[]> byWait = new TreeMap<>(); // key -> {samples with it, sum, max}
            Map<String, Long> byQuery = new HashMap<>();
            int samples = 0;
            long backendSamples = 0;
            long nextSample = System.nanoTime();
            while (!state(phase).equals("done") && System.nanoTime() < deadline) {
                if (System.nanoTime() >= nextSample) {
                    nextSample += interval * 1_000_000L;
                    Map<String, Integer> counts = new TreeMap<>();
                    int total = 0;
                    double maxXact = 0;
                    try (ResultSet rs = s.executeQuery(ACTIVITY)) {
                        while (rs.next()) {
                            String key = rs.getString(1) + "|" + rs.getString(2) + "|" + rs.getString(3);
                            counts.merge(key, 1, Integer::sum);
                            total++;
                            if (!rs.getString(1).equals("idle")) {
                                byQuery.merge(rs.getString(1) + " | " + rs.getString(4), 1L, Long::sum);
                                maxXact = Math.max(maxXact, rs.getDouble(5));
                            }
                        }
                    }
                    samples++;
                    backendSamples += total;
                    StringBuilder line = new StringBuilder(LocalTime.now().truncatedTo(ChronoUnit.MILLIS).toString())
                            .append(" total=").append(total);
                    counts.forEach((k, v) -> {
                        line.append(' ').append(k.replace(' ', '_')).append('=').append(v);
                        long[] agg = byWait.computeIfAbsent(k, x -> new long[3]);
                        agg[0]++;
                        agg[1] += v;
                        agg[2] = Math.max(agg[2], v);
                    });
                    line.append(String.format(Locale.ROOT, " max_xact_ms=%.0f", maxXact));
                    act.write(line.append('\n').toString());
                }
                Thread.sleep(Math.max(1, Math.min(20, (nextSample - System.nanoTime()) / 1_000_000)));
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            long[] after = counters(s);
            writeSummary(act, byWait, byQuery, samples, backendSamples);
            writeTop(s, Path.of(o.get("pgss-out")), resetNote, seconds, before, after);
        }
    }

    static String state(Path f) {
        try {
            return Files.exists(f) ? Files.readString(f).trim() : "";
        } catch (IOException e) {
            return "";
        }
    }

    static void answer(Path f, String state) throws IOException {
        Path tmp = Path.of(f + ".profile.tmp");
        Files.writeString(tmp, state);
        Files.move(tmp, f, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    static long[] counters(Statement s) {
        try (ResultSet rs = s.executeQuery(COUNTERS)) {
            long[] v = new long[COUNTER_NAMES.length];
            if (rs.next()) {
                for (int i = 0; i < v.length; i++) {
                    v[i] = rs.getLong(i + 1);
                }
            }
            return v;
        } catch (SQLException e) {
            return null;
        }
    }

    static void writeSummary(BufferedWriter act, Map<String, long[]> byWait, Map<String, Long> byQuery, int samples,
            long backendSamples) throws IOException {
        act.write("\n# summary: " + samples + " samples; per state|wait_event_type|wait_event: mean sessions per sample,"
                + " max in one sample, share of all session-samples\n");
        List<Map.Entry<String, long[]>> rows = new ArrayList<>(byWait.entrySet());
        rows.sort((a, b) -> Long.compare(b.getValue()[1], a.getValue()[1]));
        for (Map.Entry<String, long[]> e : rows) {
            long[] v = e.getValue();
            act.write(String.format(Locale.ROOT, "summary %-55s mean=%6.2f max=%3d share=%5.1f%%%n", e.getKey(),
                    samples == 0 ? 0 : (double) v[1] / samples, v[2],
                    backendSamples == 0 ? 0 : 100.0 * v[1] / backendSamples));
        }
        act.write("\n# not idle, by state and query (top 15): mean sessions per sample\n");
        byQuery.entrySet().stream().sorted((a, b) -> Long.compare(b.getValue(), a.getValue())).limit(15)
                .forEach(e -> {
                    try {
                        act.write(String.format(Locale.ROOT, "query %6.2f  %s%n",
                                samples == 0 ? 0 : (double) e.getValue() / samples, e.getKey()));
                    } catch (IOException ex) {
                        throw new RuntimeException(ex);
                    }
                });
    }

    static void writeTop(Statement s, Path out, String note, double seconds, long[] before, long[] after)
            throws IOException {
        StringBuilder sb = new StringBuilder();
        sb.append(String.format(Locale.ROOT, "# pg_stat_statements over the measured phase (%.1f s), top 25 by "
                + "total_exec_time + total_plan_time (all databases)%n", seconds)).append(note);
        try {
            try (ResultSet rs = s.executeQuery(TOTALS)) {
                if (rs.next()) {
                    sb.append(String.format(Locale.ROOT, "# all statements: %d distinct, %d calls, exec %.0f ms,"
                            + " plan %.0f ms%n", rs.getLong(1), rs.getLong(2), rs.getDouble(3), rs.getDouble(4)));
                }
            }
            if (before != null && after != null) {
                Map<String, Long> d = new LinkedHashMap<>();
                for (int i = 0; i < COUNTER_NAMES.length; i++) {
                    d.put(COUNTER_NAMES[i], after[i] - before[i]);
                }
                sb.append("# deltas (this database; WAL: whole server): ").append(d.toString()
                        .replaceAll("[{}]", "")).append('\n');
            }
            sb.append(String.format(Locale.ROOT, "%9s %11s %9s %10s %9s %9s  %-8s %s%n", "calls", "exec_ms",
                    "mean_ms", "plan_ms", "mplan_ms", "rows", "db", "query"));
            try (ResultSet rs = s.executeQuery(TOP)) {
                while (rs.next()) {
                    sb.append(String.format(Locale.ROOT, "%9d %11.1f %9.3f %10.1f %9.3f %9d  %-8s %s%n",
                            rs.getLong(1), rs.getDouble(2), rs.getDouble(3), rs.getDouble(4), rs.getDouble(5),
                            rs.getLong(6), rs.getString(7), rs.getString(8)));
                }
            }
        } catch (SQLException e) {
            sb.append("pg_stat_statements unavailable: ").append(e.getMessage()).append('\n');
        }
        Files.writeString(out, sb.toString(), StandardCharsets.UTF_8);
    }
}
