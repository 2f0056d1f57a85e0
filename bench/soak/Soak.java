// The load and the sampler of the soak scenario (bench/soak.sh): starts runs of one workflow at a steady rate over
// HTTP/1.1 keep-alive (an open loop: a start is sent every 1/rate s whatever the answers, at most --max-in-flight
// outstanding), and every --sample-s seconds reads, for each eec_* table, its heap size (pg_relation_size), its indexes'
// (pg_indexes_size), its total with TOAST (pg_total_relation_size) and its rows (count(*)), plus retention's deletions
// from /q/metrics. Prints a table with one line per sample to stdout as it goes, and the figures as key=value lines
// to --out at the end.
//
// usage: java -cp <pgjdbc.jar> bench/soak/Soak.java --base-url URL --workflow NAME --client-token FILE
//          --jdbc-url URL --db-user U --db-password PW --out FILE [--rate 100] [--minutes 30] [--sample-s 60]
//          [--max-in-flight 64]
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class Soak {
    /** The tables a run leaves rows in, in the order the table prints them. */
    static final List<String> TABLES = List.of("eec_workflow_run", "eec_run_transition", "eec_run_inbox", "eec_queue_item");
    static final Pattern DELETED = Pattern.compile("(?m)^ductor_retention_deleted_total\\{[^}]*table=\"workflow_run\"[^}]*\\}\\s+([0-9.eE+]+)");

    record Size(long rows, long heapKb, long indexKb, long totalKb) {
    }

    record Sample(double minute, long started, long deleted, Map<String, Size> sizes, long allEecKb) {
    }

    public static void main(String[] args) throws Exception {
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        String base = o.get("base-url");
        String token = Files.readString(Path.of(o.get("client-token"))).trim();
        double rate = Double.parseDouble(o.getOrDefault("rate", "100"));
        double minutes = Double.parseDouble(o.getOrDefault("minutes", "30"));
        int sampleS = Integer.parseInt(o.getOrDefault("sample-s", "60"));
        Semaphore inFlight = new Semaphore(Integer.parseInt(o.getOrDefault("max-in-flight", "64")));
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .executor(Executors.newFixedThreadPool(4)).connectTimeout(Duration.ofSeconds(10)).build();
        URI start = URI.create(base + "/api/v1/workflows/" + o.get("workflow") + "/runs");
        AtomicLong started = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        AtomicLong skipped = new AtomicLong();

        try (Connection db = DriverManager.getConnection(o.get("jdbc-url"), o.get("db-user"), o.get("db-password"))) {
            List<Sample> samples = new ArrayList<>();
            long t0 = System.nanoTime();
            long end = t0 + (long) (minutes * 60e9);
            long interval = (long) (1e9 / rate);
            long next = t0;
            long nextSample = t0;
            header();
            while (true) {
                long now = System.nanoTime();
                if (now >= nextSample) {
                    Sample s = sample(db, http, base, (now - t0) / 60e9, started.get());
                    samples.add(s);
                    print(s);
                    nextSample += sampleS * 1_000_000_000L;
                    if (now >= end) {
                        break;
                    }
                }
                if (now >= end) {
                    Thread.sleep(Math.max(1, (nextSample - now) / 1_000_000));
                    continue;
                }
                if (now < next) {
                    long wait = next - now;
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                    continue;
                }
                next += interval;
                if (!inFlight.tryAcquire()) {
                    skipped.incrementAndGet(); // the pod is behind: an open loop does not queue without bound
                    continue;
                }
                HttpRequest request = HttpRequest.newBuilder(start).timeout(Duration.ofSeconds(30))
                        .header("Authorization", "Bearer " + token).header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString("{\"input\": {}}")).build();
                http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
                    inFlight.release();
                    if (e == null && r.statusCode() / 100 == 2) {
                        started.incrementAndGet();
                    } else {
                        refused.incrementAndGet();
                    }
                });
            }
            report(o.get("out"), samples, started.get(), refused.get(), skipped.get(), rate);
        }
        System.exit(0);
    }

    static Sample sample(Connection db, HttpClient http, String base, double minute, long started) throws Exception {
        Map<String, Size> sizes = new LinkedHashMap<>();
        long all;
        try (Statement s = db.createStatement()) {
            for (String table : TABLES) {
                try (ResultSet rs = s.executeQuery("SELECT (SELECT count(*) FROM " + table + "), pg_relation_size('" + table
                        + "') / 1024, pg_indexes_size('" + table + "') / 1024, pg_total_relation_size('" + table + "') / 1024")) {
                    rs.next();
                    sizes.put(table, new Size(rs.getLong(1), rs.getLong(2), rs.getLong(3), rs.getLong(4)));
                }
            }
            try (ResultSet rs = s.executeQuery("SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) / 1024 FROM pg_class c"
                    + " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.relkind = 'r' AND n.nspname = current_schema()"
                    + " AND c.relname LIKE 'eec\\_%'")) {
                rs.next();
                all = rs.getLong(1);
            }
        }
        return new Sample(minute, started, deleted(http, base), sizes, all);
    }

    static long deleted(HttpClient http, String base) {
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/q/metrics"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            Matcher m = DELETED.matcher(r.body());
            return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
        } catch (Exception e) {
            return -1;
        }
    }

    static void header() {
        System.out.println(String.format(Locale.ROOT, "%6s %9s %9s | %8s %8s %8s | %9s %8s | %8s %8s | %7s %7s | %9s",
                "minute", "started", "deleted", "runs", "run_heap", "run_idx", "trans", "trans_kb", "inbox", "inbox_kb",
                "queue", "queue_kb", "total_kb"));
        System.out.flush();
    }

    static void print(Sample s) {
        Size run = s.sizes().get("eec_workflow_run");
        Size tr = s.sizes().get("eec_run_transition");
        Size in = s.sizes().get("eec_run_inbox");
        Size q = s.sizes().get("eec_queue_item");
        System.out.println(String.format(Locale.ROOT, "%6.1f %9d %9d | %8d %8d %8d | %9d %8d | %8d %8d | %7d %7d | %9d",
                s.minute(), s.started(), s.deleted(), run.rows(), run.heapKb(), run.indexKb(), tr.rows(), tr.totalKb(),
                in.rows(), in.totalKb(), q.rows(), q.totalKb(), s.allEecKb()));
        System.out.flush();
    }

    static void report(String out, List<Sample> samples, long started, long refused, long skipped, double rate) throws Exception {
        Sample first = samples.get(0);
        Sample last = samples.get(samples.size() - 1);
        // The first sample is taken at minute 0, on an empty schema: "first" sizes are those after the first minute,
        // when retention (PT1M) has had its first chance to delete.
        Sample firstLoaded = samples.size() > 1 ? samples.get(1) : first;
        Sample half = samples.get(Math.max(1, samples.size() / 2));
        StringBuilder figures = new StringBuilder();
        put(figures, "rate_per_s", String.format(Locale.ROOT, "%.1f", rate));
        put(figures, "refused", refused);
        put(figures, "skipped_in_flight_full", skipped);
        put(figures, "samples", samples.size());
        put(figures, "runs_in_table_last", last.sizes().get("eec_workflow_run").rows());
        put(figures, "transitions_in_table_last", last.sizes().get("eec_run_transition").rows());
        put(figures, "run_heap_kb_last", last.sizes().get("eec_workflow_run").heapKb());
        put(figures, "run_index_kb_last", last.sizes().get("eec_workflow_run").indexKb());
        put(figures, "total_kb_half", half.allEecKb());
        String line = String.format(Locale.ROOT, "minutes=%.1f runs_started=%d deleted_runs=%d run_table_kb_first=%d"
                        + " run_table_kb_last=%d total_kb_first=%d total_kb_last=%d growth_last_half_pct=%.1f",
                last.minute(), started, last.deleted(), firstLoaded.sizes().get("eec_workflow_run").totalKb(),
                last.sizes().get("eec_workflow_run").totalKb(), firstLoaded.allEecKb(), last.allEecKb(),
                half.allEecKb() == 0 ? 0.0 : 100.0 * (last.allEecKb() - half.allEecKb()) / half.allEecKb());
        figures.append(line).append('\n');
        Files.writeString(Path.of(out), figures.toString());
    }

    static void put(StringBuilder b, String key, Object value) {
        b.append(key).append('=').append(value).append('\n');
    }
}
