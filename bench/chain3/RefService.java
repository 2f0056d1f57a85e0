// The yardstick of the chain3 benchmark: what a competent engineer writes in an afternoon for "start a run of
// three durable steps over HTTP, execute them in the background", with plain JDBC on the same PostgreSQL and the
// same budget Ductor gets (10 connections, 8 worker threads, a 100 ms idle poll). Not product code (no retries
// policy, no history, no metrics), but not sandbagged either: prepared statements reused per connection, one
// statement per claim (FOR UPDATE SKIP LOCKED, batch of 8), autocommit, a partial index for the claim, and a
// worker woken early when a start of this process inserted work.
//
// Each step is durable on its own: a claimed run executes its current step, then one UPDATE records it and
// releases the lease, so the next step is claimed again (by any worker), as a durable-execution engine would.
//
// usage: java -cp <pgjdbc.jar> bench/chain3/RefService.java --port P --jdbc-url URL --user U --password PW
//            --public-key PEM [--issuer ductor-bench] [--pool 10] [--workers 8] [--batch 8] [--http-threads 8]
//            [--idle-ms 100]
// HTTP: POST /runs  (Bearer RS256 JWT with role client; body {"input":...,"idempotencyKey":"..."})
//         -> 201 {"runId":"..."}, a repeated idempotencyKey -> 200 with the first run
//       GET /health -> 200 once the schema is in place and the workers run
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PublicKey;
import java.security.Signature;
import java.security.spec.X509EncodedKeySpec;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

public class RefService {
    static final int STEPS = 3;

    static final String SCHEMA = """
            CREATE TABLE IF NOT EXISTS ref_run (
                id              uuid        PRIMARY KEY,
                idempotency_key text        UNIQUE,
                step            int         NOT NULL,
                status          text        NOT NULL,
                lease_until     timestamptz,
                input           jsonb,
                created_at      timestamptz NOT NULL,
                updated_at      timestamptz NOT NULL
            );
            -- the claim walks only live runs, oldest first; step updates touch no indexed column (HOT)
            CREATE INDEX IF NOT EXISTS ref_run_claim ON ref_run (created_at) WHERE status = 'RUNNING';
            """;
    static final String INSERT = "INSERT INTO ref_run (id, idempotency_key, step, status, input, created_at, updated_at)"
            + " VALUES (gen_random_uuid(), ?, 0, 'RUNNING', ?::jsonb, now(), now())"
            + " ON CONFLICT (idempotency_key) DO NOTHING RETURNING id";
    static final String EXISTING = "SELECT id FROM ref_run WHERE idempotency_key = ?";
    static final String CLAIM = "UPDATE ref_run SET lease_until = now() + interval '30 seconds' WHERE id IN ("
            + "SELECT id FROM ref_run WHERE status = 'RUNNING' AND (lease_until IS NULL OR lease_until < now())"
            + " ORDER BY created_at LIMIT ? FOR UPDATE SKIP LOCKED) RETURNING id, step";
    // "AND step = ?" fences a worker whose lease expired and whose step another worker already recorded.
    static final String STEP = "UPDATE ref_run SET step = step + 1,"
            + " status = CASE WHEN step + 1 >= " + STEPS + " THEN 'SUCCEEDED' ELSE status END,"
            + " lease_until = NULL, updated_at = now() WHERE id = ? AND step = ?";

    static final Pattern KEY = Pattern.compile("\"idempotencyKey\"\\s*:\\s*\"((?:[^\"\\\\]|\\\\.)*)\"");
    static final Pattern INPUT = Pattern.compile("\"input\"\\s*:\\s*");
    static final Pattern ALG = Pattern.compile("\"alg\"\\s*:\\s*\"RS256\"");
    static final Pattern EXP = Pattern.compile("\"exp\"\\s*:\\s*(\\d+)");
    static final Pattern ISS = Pattern.compile("\"iss\"\\s*:\\s*\"([^\"]*)\"");
    static final Pattern GROUPS = Pattern.compile("\"groups\"\\s*:\\s*\\[([^\\]]*)\\]");

    final String url, user, password, issuer;
    final PublicKey publicKey;
    final BlockingQueue<Db> pool;
    final int batch;
    final long idleMs;
    final Semaphore wake = new Semaphore(0);
    final ThreadLocal<Signature> rsa = ThreadLocal.withInitial(() -> {
        try {
            return Signature.getInstance("SHA256withRSA");
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    });
    volatile boolean running = true;

    /** One pooled connection with its prepared statements (reused, so pgjdbc switches to server-side prepares). */
    static final class Db {
        final Connection c;
        final Map<String, PreparedStatement> statements = new HashMap<>();

        Db(Connection c) {
            this.c = c;
        }

        PreparedStatement ps(String sql) throws SQLException {
            PreparedStatement ps = statements.get(sql);
            if (ps == null) {
                ps = c.prepareStatement(sql);
                statements.put(sql, ps);
            }
            return ps;
        }
    }

    RefService(Map<String, String> o) throws Exception {
        url = o.get("jdbc-url");
        user = o.get("user");
        password = o.get("password");
        issuer = o.getOrDefault("issuer", "ductor-bench");
        publicKey = readPublicKey(Path.of(o.get("public-key")));
        batch = Integer.parseInt(o.getOrDefault("batch", "8"));
        idleMs = Long.parseLong(o.getOrDefault("idle-ms", "100"));
        int size = Integer.parseInt(o.getOrDefault("pool", "10"));
        pool = new ArrayBlockingQueue<>(size);
        for (int i = 0; i < size; i++) {
            pool.add(connect());
        }
    }

    Db connect() throws SQLException {
        Connection c = DriverManager.getConnection(url, user, password);
        c.setAutoCommit(true);
        // Found with EXPLAIN ANALYZE under load: the planner (few live RUNNING rows) claims with a bitmap scan of
        // ref_run_claim plus a sort, which visits every index entry left by runs finished since the last vacuum
        // (bitmap scans never mark index entries dead), so each claim costs more the more runs have completed:
        // 0.4-1 ms after a few thousand. The ordered index scan stops after the batch and marks the dead entries
        // as it passes them: ~0.03 ms. No other statement here would use a bitmap scan.
        try (Statement s = c.createStatement()) {
            s.execute("SET enable_bitmapscan = off");
        }
        return new Db(c);
    }

    Db borrow() throws SQLException, InterruptedException {
        Db db = pool.poll(30, TimeUnit.SECONDS);
        if (db == null) {
            throw new SQLException("no pooled connection within 30 s");
        }
        return db;
    }

    /** Back to the pool; a connection that failed is replaced by a fresh one rather than handed out again. */
    void release(Db db, boolean broken) {
        if (broken) {
            try {
                db.c.close();
            } catch (SQLException ignored) {
                // it is being replaced anyway
            }
            try {
                db = connect();
            } catch (SQLException e) {
                System.err.println("ref: cannot reconnect: " + e.getMessage());
                return; // the pool shrinks; the next borrow waits for another connection
            }
        }
        pool.add(db);
    }

    public static void main(String[] args) throws Exception {
        // The JDK server writes headers and body in separate writes; without TCP_NODELAY, Nagle plus the client's
        // delayed ACK stalls every keep-alive response by ~40 ms. Read once when the server classes initialise.
        System.setProperty("sun.net.httpserver.nodelay", "true");
        Map<String, String> o = new HashMap<>();
        for (int i = 0; i + 1 < args.length; i += 2) {
            o.put(args[i].replaceFirst("^--", ""), args[i + 1]);
        }
        for (String required : List.of("port", "jdbc-url", "user", "password", "public-key")) {
            if (!o.containsKey(required)) {
                System.err.println("missing --" + required);
                System.exit(2);
            }
        }
        RefService ref = new RefService(o);
        ref.createSchema();
        int workers = Integer.parseInt(o.getOrDefault("workers", "8"));
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(ref::workLoop, "ref-worker-" + i);
            t.start();
            threads.add(t);
        }
        HttpServer server = HttpServer.create(
                new InetSocketAddress("127.0.0.1", Integer.parseInt(o.get("port"))), 512);
        ExecutorService http = Executors.newFixedThreadPool(Integer.parseInt(o.getOrDefault("http-threads", "8")));
        server.setExecutor(http);
        server.createContext("/runs", ref::handleStart);
        server.createContext("/health", ex -> respond(ex, 200, "{\"status\":\"UP\"}"));
        server.start();
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            ref.running = false;
            server.stop(0);
            http.shutdownNow();
        }));
        System.err.println("ref: listening on 127.0.0.1:" + o.get("port") + ", " + workers + " workers, pool "
                + ref.pool.size());
    }

    void createSchema() throws Exception {
        Db db = borrow();
        try (Statement s = db.c.createStatement()) {
            s.execute(SCHEMA);
        } finally {
            release(db, false);
        }
    }

    // ---- HTTP: POST /runs -------------------------------------------------------------------------------------

    void handleStart(HttpExchange ex) throws IOException {
        try {
            if (!"POST".equals(ex.getRequestMethod()) || !"/runs".equals(ex.getRequestURI().getPath())) {
                respond(ex, 404, "{\"error\":\"not found\"}");
                return;
            }
            byte[] raw = ex.getRequestBody().readAllBytes();
            int auth = authorize(ex.getRequestHeaders().getFirst("Authorization"));
            if (auth != 200) {
                respond(ex, auth, auth == 401 ? "{\"error\":\"unauthorized\"}" : "{\"error\":\"forbidden\"}");
                return;
            }
            String body = new String(raw, StandardCharsets.UTF_8);
            Matcher k = KEY.matcher(body);
            String key = k.find() ? k.group(1) : null;
            String input = jsonValue(body, INPUT);
            if (input == null) {
                if (body.contains("\"input\"")) {
                    respond(ex, 400, "{\"error\":\"bad body\"}");
                    return;
                }
                input = "null"; // no input given: a JSON null
            }
            Db db = borrow();
            boolean broken = false;
            UUID id = null;
            int status = 201;
            try {
                PreparedStatement ins = db.ps(INSERT);
                ins.setString(1, key);
                ins.setString(2, input);
                try (ResultSet rs = ins.executeQuery()) {
                    if (rs.next()) {
                        id = rs.getObject(1, UUID.class);
                    }
                }
                if (id == null) { // the key was taken: answer with the first run, as the first request was answered
                    PreparedStatement sel = db.ps(EXISTING);
                    sel.setString(1, key);
                    try (ResultSet rs = sel.executeQuery()) {
                        if (rs.next()) {
                            id = rs.getObject(1, UUID.class);
                            status = 200;
                        }
                    }
                }
            } catch (SQLException e) {
                broken = !db.c.isValid(1);
                if ("22P02".equals(e.getSQLState())) { // input was not JSON
                    respond(ex, 400, "{\"error\":\"input is not JSON\"}");
                    return;
                }
                throw e;
            } finally {
                release(db, broken);
            }
            if (id == null) {
                respond(ex, 500, "{\"error\":\"run vanished\"}");
                return;
            }
            if (status == 201 && wake.hasQueuedThreads()) {
                wake.release(); // an idle worker claims this run now instead of at the end of its 100 ms nap
            }
            ex.getResponseHeaders().set("Location", "/runs/" + id);
            respond(ex, status, "{\"runId\":\"" + id + "\"}");
        } catch (Exception e) {
            System.err.println("ref: start failed: " + e);
            respond(ex, 500, "{\"error\":\"" + String.valueOf(e.getMessage()).replace("\"", "'") + "\"}");
        }
    }

    static void respond(HttpExchange ex, int status, String json) throws IOException {
        byte[] out = json.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "application/json");
        ex.sendResponseHeaders(status, out.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(out);
        }
        ex.close();
    }

    /** 200, 401 (no, bad or expired token) or 403 (no client role): RS256 signature, issuer, expiry, groups. */
    int authorize(String header) {
        if (header == null || !header.startsWith("Bearer ")) {
            return 401;
        }
        String[] parts = header.substring(7).trim().split("\\.");
        if (parts.length != 3) {
            return 401;
        }
        try {
            Base64.Decoder b64 = Base64.getUrlDecoder();
            if (!ALG.matcher(new String(b64.decode(parts[0]), StandardCharsets.UTF_8)).find()) {
                return 401;
            }
            Signature s = rsa.get();
            s.initVerify(publicKey);
            s.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
            if (!s.verify(b64.decode(parts[2]))) {
                return 401;
            }
            String claims = new String(b64.decode(parts[1]), StandardCharsets.UTF_8);
            Matcher exp = EXP.matcher(claims), iss = ISS.matcher(claims), groups = GROUPS.matcher(claims);
            if (!exp.find() || Long.parseLong(exp.group(1)) <= System.currentTimeMillis() / 1000
                    || !iss.find() || !issuer.equals(iss.group(1))) {
                return 401;
            }
            return groups.find() && groups.group(1).contains("\"client\"") ? 200 : 403;
        } catch (Exception e) {
            return 401;
        }
    }

    /** The raw JSON text of the value after the pattern (object or array by bracket matching, else a scalar). */
    static String jsonValue(String body, Pattern name) {
        Matcher m = name.matcher(body);
        if (!m.find()) {
            return null;
        }
        int start = m.end(), i = start;
        if (i >= body.length()) {
            return null;
        }
        char c = body.charAt(i);
        if (c == '{' || c == '[') {
            int depth = 0;
            boolean inString = false;
            for (; i < body.length(); i++) {
                char ch = body.charAt(i);
                if (inString) {
                    if (ch == '\\') {
                        i++;
                    } else if (ch == '"') {
                        inString = false;
                    }
                } else if (ch == '"') {
                    inString = true;
                } else if (ch == '{' || ch == '[') {
                    depth++;
                } else if ((ch == '}' || ch == ']') && --depth == 0) {
                    return body.substring(start, i + 1);
                }
            }
            return null;
        }
        if (c == '"') {
            for (i = start + 1; i < body.length(); i++) {
                if (body.charAt(i) == '\\') {
                    i++;
                } else if (body.charAt(i) == '"') {
                    return body.substring(start, i + 1);
                }
            }
            return null;
        }
        while (i < body.length() && ",}] \t\r\n".indexOf(body.charAt(i)) < 0) {
            i++;
        }
        return i > start ? body.substring(start, i) : null;
    }

    // ---- workers ----------------------------------------------------------------------------------------------

    void workLoop() {
        List<UUID> ids = new ArrayList<>(batch);
        List<Integer> steps = new ArrayList<>(batch);
        while (running) {
            try {
                ids.clear();
                steps.clear();
                claim(ids, steps);
                if (ids.isEmpty()) {
                    wake.tryAcquire(idleMs, TimeUnit.MILLISECONDS);
                    continue;
                }
                for (int i = 0; i < ids.size(); i++) {
                    noop(steps.get(i));
                    record(ids.get(i), steps.get(i));
                }
            } catch (InterruptedException e) {
                return;
            } catch (Exception e) {
                if (running) {
                    System.err.println(Thread.currentThread().getName() + ": " + e);
                    try {
                        Thread.sleep(idleMs);
                    } catch (InterruptedException ie) {
                        return;
                    }
                }
            }
        }
    }

    void claim(List<UUID> ids, List<Integer> steps) throws SQLException, InterruptedException {
        Db db = borrow();
        boolean broken = false;
        try {
            PreparedStatement ps = db.ps(CLAIM);
            ps.setInt(1, batch);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    ids.add(rs.getObject(1, UUID.class));
                    steps.add(rs.getInt(2));
                }
            }
        } catch (SQLException e) {
            broken = !db.c.isValid(1);
            throw e;
        } finally {
            release(db, broken);
        }
    }

    /** The step's own work: noop does nothing; a real handler would run here, outside any transaction. */
    static void noop(int step) {
        // nothing
    }

    /** Records the finished step (the third finishes the run) and releases the lease; one autocommit UPDATE. */
    void record(UUID id, int step) throws SQLException, InterruptedException {
        Db db = borrow();
        boolean broken = false;
        try {
            PreparedStatement ps = db.ps(STEP);
            ps.setObject(1, id);
            ps.setInt(2, step);
            ps.executeUpdate();
        } catch (SQLException e) {
            broken = !db.c.isValid(1);
            throw e;
        } finally {
            release(db, broken);
        }
    }

    static PublicKey readPublicKey(Path pem) throws Exception {
        String b64 = Files.readString(pem).replaceAll("-----[A-Z ]+-----", "").replaceAll("\\s", "");
        return KeyFactory.getInstance("RSA").generatePublic(new X509EncodedKeySpec(Base64.getDecoder().decode(b64)));
    }
}
