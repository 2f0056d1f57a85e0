// The backlog-sdk benchmark's clock and judge: waits until every run of the workflow is terminal or --cap-s has passed
// since --t0-ms (the moment the worker was started), then reads from the database in what order the runs finished.
// Everything is computed in SQL over the run rows (created_at: when a run started; updated_at of a terminal row: when
// it finished) and the node transitions (a step's SUCCEEDED transition: when its result was applied).
//
// usage: java -cp <pgjdbc.jar> bench/backlog/DrainFigures.java --jdbc-url URL --user U --password PW
//          --t0-ms <epoch ms> --expect <runs> [--tenant bench] [--workflow chain3-sdk] [--cap-s 600] [--first 1000]
// prints key=value lines to stdout (times in seconds from t0); a run not finished by the end counts as finishing
// after it: a percentile that falls on such runs is printed as ">W", W the seconds waited
// exit: 0 every run SUCCEEDED before the cap, 1 otherwise, 2 usage
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

public class DrainFigures {
    // A run's finish in seconds from t0 (NULL while it runs), its place in start order, and its average ranks by start
    // and by finish (ties share the mean of their places, unfinished runs tie last), whose Pearson correlation is
    // Spearman's rank correlation with the correction for ties.
    static final String RANKED = """
            WITH r AS (
                SELECT created_at, status,
                       CASE WHEN status <> 'RUNNING' THEN extract(epoch FROM updated_at)::float8 - ? END AS fin_s
                  FROM eec_workflow_run WHERE tenant = ? AND workflow_name = ?
            ), ranked AS (
                SELECT status, fin_s,
                       row_number() OVER (ORDER BY created_at) AS start_order,
                       count(*) OVER () AS total,
                       rank() OVER (ORDER BY created_at) + (count(*) OVER (PARTITION BY created_at) - 1) / 2.0 AS start_rank,
                       rank() OVER (ORDER BY fin_s NULLS LAST) + (count(*) OVER (PARTITION BY fin_s) - 1) / 2.0 AS finish_rank
                  FROM r
            )
            """;

    static final String RUNS = RANKED + """
            SELECT count(*) AS runs, count(fin_s) AS finished, count(*) FILTER (WHERE status = 'SUCCEEDED') AS succeeded,
                   min(fin_s) AS first_finish_s, max(fin_s) AS last_finish_s,
                   percentile_disc(0.5) WITHIN GROUP (ORDER BY coalesce(fin_s, 'Infinity')) FILTER (WHERE start_order <= ?) AS first_p50,
                   percentile_disc(0.9) WITHIN GROUP (ORDER BY coalesce(fin_s, 'Infinity')) FILTER (WHERE start_order <= ?) AS first_p90,
                   percentile_disc(0.5) WITHIN GROUP (ORDER BY coalesce(fin_s, 'Infinity')) FILTER (WHERE start_order > total - ?) AS last_p50,
                   percentile_disc(0.5) WITHIN GROUP (ORDER BY coalesce(fin_s, 'Infinity')) AS all_p50,
                   percentile_disc(0.9) WITHIN GROUP (ORDER BY coalesce(fin_s, 'Infinity')) AS all_p90,
                   corr(start_rank, finish_rank) AS rank_corr
              FROM ranked
            """;

    // runs and steps finished within a quarter, a half and three quarters of the window, and in all of it
    static final String QUARTERS = """
            WITH runs AS (
                SELECT CASE WHEN status <> 'RUNNING' THEN extract(epoch FROM updated_at)::float8 - ? END AS fin_s
                  FROM eec_workflow_run WHERE tenant = ? AND workflow_name = ?
            ), steps AS (
                SELECT extract(epoch FROM t.at)::float8 - ? AS done_s
                  FROM eec_run_transition t JOIN eec_workflow_run w ON w.run_id = t.run_id
                 WHERE w.tenant = ? AND w.workflow_name = ? AND t.node_id IS NOT NULL AND t.to_state = 'SUCCEEDED'
            )
            SELECT (SELECT count(*) FILTER (WHERE fin_s <= ? * 0.25) FROM runs),
                   (SELECT count(*) FILTER (WHERE fin_s <= ? * 0.50) FROM runs),
                   (SELECT count(*) FILTER (WHERE fin_s <= ? * 0.75) FROM runs),
                   (SELECT count(*) FILTER (WHERE done_s <= ? * 0.25) FROM steps),
                   (SELECT count(*) FILTER (WHERE done_s <= ? * 0.50) FROM steps),
                   (SELECT count(*) FILTER (WHERE done_s <= ? * 0.75) FROM steps),
                   (SELECT count(*) FILTER (WHERE done_s <= ?) FROM steps)
            """;

    static final String PROGRESS = """
            SELECT count(*) FILTER (WHERE status <> 'RUNNING'), count(*) FILTER (WHERE status = 'SUCCEEDED'), count(*)
              FROM eec_workflow_run WHERE tenant = ? AND workflow_name = ?
            """;

    public static void main(String[] args) throws Exception {
        Map<String, String> o = options(args);
        for (String required : new String[] {"jdbc-url", "user", "password", "t0-ms", "expect"}) {
            if (!o.containsKey(required)) {
                System.err.println("missing --" + required);
                System.exit(2);
            }
        }
        String tenant = o.getOrDefault("tenant", "bench"), workflow = o.getOrDefault("workflow", "chain3-sdk");
        double t0 = Long.parseLong(o.get("t0-ms")) / 1000.0;
        double cap = Double.parseDouble(o.getOrDefault("cap-s", "600"));
        int expect = Integer.parseInt(o.get("expect")), first = Integer.parseInt(o.getOrDefault("first", "1000"));
        try (Connection c = DriverManager.getConnection(o.get("jdbc-url"), o.get("user"), o.get("password"))) {
            long[] p = waitForDrain(c, tenant, workflow, t0, cap, expect);
            double waited = now() - t0;
            Map<String, String> fig = new LinkedHashMap<>();
            boolean drained = p[0] >= expect;
            fig.put("drained", drained ? "1" : "0");
            double window;
            try (PreparedStatement ps = c.prepareStatement(RUNS)) {
                int i = 1;
                ps.setDouble(i++, t0);
                ps.setString(i++, tenant);
                ps.setString(i++, workflow);
                ps.setInt(i++, first);
                ps.setInt(i++, first);
                ps.setInt(i++, first);
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    long runs = rs.getLong("runs"), finished = rs.getLong("finished");
                    double last = rs.getDouble("last_finish_s");
                    // the drain: until the last run finished; not drained, the figures cover the time waited
                    window = drained ? last : waited;
                    fig.put("runs", Long.toString(runs));
                    fig.put("finished", Long.toString(finished));
                    fig.put("succeeded", Long.toString(rs.getLong("succeeded")));
                    fig.put("window_s", s(window));
                    fig.put("drain_s", drained ? s(last) : ">" + s(waited));
                    fig.put("first_finish_s", finished > 0 ? s(rs.getDouble("first_finish_s")) : "NA");
                    fig.put("first" + first + "_p50_s", bounded(rs.getDouble("first_p50"), waited));
                    fig.put("first" + first + "_p90_s", bounded(rs.getDouble("first_p90"), waited));
                    fig.put("last" + first + "_p50_s", bounded(rs.getDouble("last_p50"), waited));
                    fig.put("all_p50_s", bounded(rs.getDouble("all_p50"), waited));
                    fig.put("all_p90_s", bounded(rs.getDouble("all_p90"), waited));
                    double corr = rs.getDouble("rank_corr");
                    fig.put("rank_corr", rs.wasNull() ? "NA" : String.format("%.3f", corr));
                    fig.put("runs_per_s", window > 0 ? s(finished / window) : "NA");
                }
            }
            try (PreparedStatement ps = c.prepareStatement(QUARTERS)) {
                int i = 1;
                ps.setDouble(i++, t0);
                ps.setString(i++, tenant);
                ps.setString(i++, workflow);
                ps.setDouble(i++, t0);
                ps.setString(i++, tenant);
                ps.setString(i++, workflow);
                for (int k = 0; k < 7; k++) {
                    ps.setDouble(i++, window);
                }
                try (ResultSet rs = ps.executeQuery()) {
                    rs.next();
                    fig.put("runs_at_25pct", Long.toString(rs.getLong(1)));
                    fig.put("runs_at_50pct", Long.toString(rs.getLong(2)));
                    fig.put("runs_at_75pct", Long.toString(rs.getLong(3)));
                    fig.put("steps_at_25pct", Long.toString(rs.getLong(4)));
                    fig.put("steps_at_50pct", Long.toString(rs.getLong(5)));
                    fig.put("steps_at_75pct", Long.toString(rs.getLong(6)));
                    fig.put("steps", Long.toString(rs.getLong(7)));
                    fig.put("steps_per_s", window > 0 ? s(rs.getLong(7) / window) : "NA");
                }
            }
            fig.forEach((k, v) -> System.out.println(k + "=" + v));
            System.exit(drained && p[1] == expect ? 0 : 1);
        }
    }

    /** Polls once a second until {@code expect} runs are terminal or the cap passed; a progress line every 10 s. */
    static long[] waitForDrain(Connection c, String tenant, String workflow, double t0, double cap, int expect)
            throws SQLException, InterruptedException {
        double lastLog = 0;
        while (true) {
            long[] p = progress(c, tenant, workflow);
            double elapsed = now() - t0;
            if (p[0] >= expect || elapsed >= cap) {
                System.err.printf("drain: %d of %d runs finished (%d succeeded) after %.1f s%s%n", p[0], expect, p[1],
                        elapsed, p[0] >= expect ? "" : " (cap reached)");
                return p;
            }
            if (elapsed - lastLog >= 10) {
                System.err.printf("drain: %d of %d runs finished after %.0f s%n", p[0], expect, elapsed);
                lastLog = elapsed;
            }
            Thread.sleep(1000);
        }
    }

    static long[] progress(Connection c, String tenant, String workflow) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(PROGRESS)) {
            ps.setString(1, tenant);
            ps.setString(2, workflow);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2), rs.getLong(3)};
            }
        }
    }

    static String bounded(double v, double waited) {
        return Double.isInfinite(v) ? ">" + s(waited) : s(v);
    }

    static String s(double v) {
        return String.format("%.1f", v);
    }

    static double now() {
        return System.currentTimeMillis() / 1000.0;
    }

    static Map<String, String> options(String[] args) {
        if (args.length % 2 != 0) {
            System.err.println("option without a value: " + args[args.length - 1]);
            System.exit(2);
        }
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--")) {
                System.err.println("unexpected argument: " + args[i]);
                System.exit(2);
            }
            o.put(args[i].substring(2), args[i + 1]);
        }
        return o;
    }
}
