package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;

import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * What a chaos trial must leave behind, checked in the database and through the API once every run had its chance
 * to finish: every accepted start is a run (lost), none still RUNNING (stuck), all SUCCEEDED (failed), nothing done
 * twice (dup: a node attempt with two outcomes, a node started or succeeded twice, a signal received twice, a key
 * with two runs); besides, gap-free histories that agree with the runs' node states, each signal consumed once, no
 * queue or inbox rows left for finished runs, every flaky step retried. Each breach is a line in {@link #problems()}.
 */
final class ChaosChecks {

    private static final int EXAMPLES = 5;

    private final Sql db;
    private final ChaosClients clients;
    private final ChaosFleet fleet;
    private final FlakyEndpoint flaky;
    private final String token;
    private final Map<String, Object> figures = new LinkedHashMap<>();
    private final List<String> problems = new ArrayList<>();
    private long lost;
    private long stuck;
    private long failed;
    private long dup;

    ChaosChecks(Sql db, ChaosClients clients, ChaosFleet fleet, FlakyEndpoint flaky, String token) {
        this.db = db;
        this.clients = clients;
        this.fleet = fleet;
        this.flaky = flaky;
        this.token = token;
    }

    /** Runs every check; {@code lastFaultAtMillis} (0: none) is where the time to recovery counts from. */
    void run(long lastFaultAtMillis) throws Exception {
        Map<String, Map<String, String>> runs = new HashMap<>();
        for (Map<String, String> row : db.maps("""
                SELECT CAST(run_id AS text) AS run_id, idempotency_key, workflow_name, status, db_record_version,
                       CAST(node_states AS text) AS node_states
                  FROM eec_workflow_run""")) {
            runs.put(row.get("run_id"), row);
        }
        checkAcceptedStarts(runs);
        checkHistories();
        checkOutcomesOnce();
        checkSignals(runs);
        checkLeftovers();
        checkFlakySteps(runs);
        checkThroughTheApi(runs);
        recovery(lastFaultAtMillis);
    }

    Map<String, Object> figures() {
        return figures;
    }

    List<String> problems() {
        return problems;
    }

    long lost() {
        return lost;
    }

    long stuck() {
        return stuck;
    }

    long failed() {
        return failed;
    }

    long dup() {
        return dup;
    }

    /** Every accepted start is its run, under its key; how the accepted runs ended; runs no client was told of. */
    private void checkAcceptedStarts(Map<String, Map<String, String>> runs) throws Exception {
        List<ChaosClients.Accepted> accepted = clients.accepted();
        Set<String> acceptedKeys = accepted.stream().map(ChaosClients.Accepted::key).collect(Collectors.toSet());
        long distinctRuns = accepted.stream().map(ChaosClients.Accepted::runId).distinct().count();
        if (distinctRuns != accepted.size()) {
            dup += accepted.size() - distinctRuns;
            problems.add((accepted.size() - distinctRuns) + " accepted starts with different keys got the same run");
        }
        Map<String, Long> byStatus = new LinkedHashMap<>();
        List<String> lostExamples = new ArrayList<>();
        List<String> unfinished = new ArrayList<>();
        for (ChaosClients.Accepted start : accepted) {
            Map<String, String> run = runs.get(start.runId());
            if (run == null || !start.key().equals(run.get("idempotency_key")) || !start.kind().workflow.equals(run.get("workflow_name"))) {
                lost++;
                if (lostExamples.size() < EXAMPLES) {
                    lostExamples.add(start + " -> in the database: " + run + "; runs under its key: "
                            + db.rows("SELECT run_id, workflow_name, status FROM eec_workflow_run WHERE idempotency_key = ?", start.key()));
                }
                continue;
            }
            String status = run.get("status");
            byStatus.merge(status, 1L, Long::sum);
            if ("RUNNING".equals(status)) {
                stuck++;
            } else if (!"SUCCEEDED".equals(status)) {
                failed++;
            }
            if (!"SUCCEEDED".equals(status) && unfinished.size() < EXAMPLES) {
                unfinished.add(start.key() + " " + start.runId() + " " + status + ", nodes " + run.get("node_states")
                        + ", history:\n" + String.join("\n", db.rows("SELECT seq, at, node_id, from_state, to_state, cause"
                        + " FROM eec_run_transition WHERE run_id = CAST(? AS uuid) ORDER BY seq", start.runId()))
                        + "\n  queue: " + db.rows("SELECT kind, node_id, attempt, lease_owner, available_at, deliveries"
                        + " FROM eec_queue_item WHERE run_id = CAST(? AS uuid)", start.runId())
                        + "\n  inbox: " + db.rows("SELECT id, kind, dedup_key, node_id, attempt, created_at, consumed_at"
                        + " FROM eec_run_inbox WHERE run_id = CAST(? AS uuid) ORDER BY id", start.runId()));
            }
        }
        if (lost > 0) {
            problems.add(lost + " accepted starts lost (no run with their id and key), e.g.\n  " + String.join("\n  ", lostExamples));
        }
        if (stuck + failed > 0) {
            problems.add((stuck + failed) + " accepted runs did not succeed: " + byStatus + ", e.g.\n  " + String.join("\n  ", unfinished));
        }
        List<String> orphans = runs.values().stream().filter(r -> !acceptedKeys.contains(r.get("idempotency_key")))
                .map(r -> r.get("idempotency_key") + " " + r.get("run_id") + " " + r.get("status")).sorted().toList();
        figures.put("accepted", accepted.size());
        figures.put("runs_in_db", runs.size());
        figures.put("runs_by_status", byStatus);
        figures.put("unacknowledged_runs", orphans.size());
        if (!orphans.isEmpty() && orphans.size() > clients.abandoned().size()) {
            problems.add("runs that no client was ever told of, more than the requests given up: " + orphans);
        }
        if (!clients.abandoned().isEmpty()) {
            problems.add(clients.abandoned().size() + " requests given up after the client budget: "
                    + clients.abandoned().subList(0, Math.min(EXAMPLES, clients.abandoned().size())));
        }
        if (!clients.refused().isEmpty()) {
            problems.add(clients.refused().size() + " requests refused for good (4xx): "
                    + clients.refused().subList(0, Math.min(EXAMPLES, clients.refused().size())));
        }
        List<String> keysTwice = db.rows("SELECT idempotency_key, count(*) FROM eec_workflow_run GROUP BY 1 HAVING count(*) > 1");
        if (!keysTwice.isEmpty()) {
            dup += keysTwice.size();
            problems.add("idempotency keys with more than one run: " + keysTwice);
        }
    }

    /** seq is exactly 1..n per run and n is its last_transition_seq. */
    private void checkHistories() throws Exception {
        List<String> gaps = db.rows("""
                SELECT r.run_id, r.last_transition_seq, count(t.seq) AS n, count(DISTINCT t.seq) AS distinct_seqs,
                       min(t.seq) AS lo, max(t.seq) AS hi
                  FROM eec_workflow_run r LEFT JOIN eec_run_transition t ON t.run_id = r.run_id
                 GROUP BY r.run_id, r.last_transition_seq
                HAVING count(t.seq) <> count(DISTINCT t.seq) OR min(t.seq) IS DISTINCT FROM 1
                    OR max(t.seq) IS DISTINCT FROM count(t.seq) OR max(t.seq) IS DISTINCT FROM r.last_transition_seq""");
        figures.put("history_gaps", gaps.size());
        if (!gaps.isEmpty()) {
            problems.add(gaps.size() + " runs whose history is not exactly seq 1..last_transition_seq: "
                    + gaps.subList(0, Math.min(EXAMPLES, gaps.size())));
        }
        // Each retry in the history is one attempt more in the node's state (attempts = 1 + retries).
        List<String> disagree = db.rows("""
                SELECT r.run_id, n.key AS node, n.value ->> 'attempts' AS attempts,
                       count(t.seq) FILTER (WHERE t.from_state = 'RUNNING' AND t.to_state = 'RUNNING') AS retries
                  FROM eec_workflow_run r CROSS JOIN jsonb_each(r.node_states) n
                  JOIN eec_run_transition t ON t.run_id = r.run_id AND t.node_id = n.key
                 GROUP BY r.run_id, n.key, n.value ->> 'attempts'
                HAVING count(t.seq) FILTER (WHERE t.from_state = 'PENDING' AND t.to_state = 'RUNNING') = 1
                   AND CAST(n.value ->> 'attempts' AS int) <> 1 + count(t.seq) FILTER (WHERE t.from_state = 'RUNNING' AND t.to_state = 'RUNNING')""");
        figures.put("history_state_mismatches", disagree.size());
        if (!disagree.isEmpty()) {
            problems.add(disagree.size() + " task nodes whose attempts disagree with the retries in their history: "
                    + disagree.subList(0, Math.min(EXAMPLES, disagree.size())));
        }
    }

    /** At most one outcome per node attempt, one start and one success per node (eec_run_transition). */
    private void checkOutcomesOnce() throws Exception {
        List<String> twiceAnAttempt = db.rows("""
                SELECT run_id, node_id, substring(cause from '^attempt ([0-9]+) (completed|failed)') AS attempt,
                       count(*) AS outcomes, string_agg(to_state || ': ' || cause, ' | ' ORDER BY seq) AS causes
                  FROM eec_run_transition
                 WHERE node_id IS NOT NULL AND from_state = 'RUNNING' AND cause ~ '^attempt [0-9]+ (completed|failed)'
                 GROUP BY run_id, node_id, 3 HAVING count(*) > 1""");
        List<String> succeededTwice = db.rows("""
                SELECT run_id, node_id, count(*) AS successes FROM eec_run_transition
                 WHERE node_id IS NOT NULL AND to_state = 'SUCCEEDED' GROUP BY run_id, node_id HAVING count(*) > 1""");
        List<String> startedTwice = db.rows("""
                SELECT run_id, node_id, count(*) AS starts FROM eec_run_transition
                 WHERE node_id IS NOT NULL AND from_state = 'PENDING' GROUP BY run_id, node_id HAVING count(*) > 1""");
        dup += twiceAnAttempt.size() + succeededTwice.size() + startedTwice.size();
        figures.put("dup_attempt_outcomes", twiceAnAttempt.size());
        figures.put("dup_node_successes", succeededTwice.size());
        figures.put("dup_node_starts", startedTwice.size());
        if (!twiceAnAttempt.isEmpty()) {
            problems.add("node attempts with more than one outcome applied: " + twiceAnAttempt.subList(0, Math.min(EXAMPLES, twiceAnAttempt.size())));
        }
        if (!succeededTwice.isEmpty()) {
            problems.add("nodes that succeeded more than once: " + succeededTwice.subList(0, Math.min(EXAMPLES, succeededTwice.size())));
        }
        if (!startedTwice.isEmpty()) {
            problems.add("nodes started more than once: " + startedTwice.subList(0, Math.min(EXAMPLES, startedTwice.size())));
        }
        figures.put("attempts_retried", db.single("SELECT count(*) FROM eec_run_transition WHERE from_state = 'RUNNING' AND to_state = 'RUNNING'"));
        figures.put("attempts_lease_expired", db.single("SELECT count(*) FROM eec_run_transition WHERE cause LIKE 'attempt % failed: lease expired%'"));
        long forced = db.single("SELECT count(*) FROM eec_run_transition WHERE cause LIKE 'forced failure%'");
        figures.put("forced_failures", forced);
    }

    /** Each accepted signal is one inbox row, consumed, and received once by its run. */
    private void checkSignals(Map<String, Map<String, String>> runs) throws Exception {
        Map<String, List<Map<String, String>>> inbox = db.maps("""
                        SELECT CAST(run_id AS text) AS run_id, dedup_key, CAST(consumed_at IS NOT NULL AS text) AS consumed
                          FROM eec_run_inbox WHERE kind = 'SIGNAL'""").stream()
                .collect(Collectors.groupingBy(row -> row.get("run_id")));
        Map<String, Long> receipts = db.countBy("SELECT CAST(run_id AS text), count(*) FROM eec_run_transition"
                + " WHERE cause = 'signal ''approve'' received' GROUP BY run_id");
        Map<String, ChaosClients.Signalled> signalled = new HashMap<>();
        clients.signalled().forEach(s -> signalled.put(s.runId(), s));
        List<String> wrong = new ArrayList<>();
        long signalRuns = 0;
        for (ChaosClients.Accepted start : clients.accepted()) {
            if (start.kind() != ChaosWorkflows.SIGNAL) {
                continue;
            }
            signalRuns++;
            ChaosClients.Signalled signal = signalled.get(start.runId());
            if (signal == null) {
                wrong.add(start.runId() + ": its signal was never accepted (see the requests given up)");
                continue;
            }
            List<Map<String, String>> rows = inbox.getOrDefault(start.runId(), List.of());
            long receipt = receipts.getOrDefault(start.runId(), 0L);
            if (rows.isEmpty()) {
                lost++;
                wrong.add(start.runId() + ": signal " + signal.key() + " accepted (" + signal.status() + ") but not in the inbox");
            } else if (rows.size() > 1 || receipt > 1) {
                dup++;
                wrong.add(start.runId() + ": signal " + signal.key() + " in the inbox " + rows.size() + " times, received " + receipt + " times");
            } else if (!("signal:" + signal.key()).equals(rows.get(0).get("dedup_key")) || !"true".equals(rows.get(0).get("consumed"))) {
                wrong.add(start.runId() + ": inbox row " + rows.get(0) + " for signal " + signal.key());
            } else if (receipt != 1 && "SUCCEEDED".equals(runs.get(start.runId()).get("status"))) {
                wrong.add(start.runId() + ": succeeded with the signal received " + receipt + " times");
            }
        }
        figures.put("signal_runs", signalRuns);
        figures.put("signals_accepted", clients.signalled().size());
        if (!wrong.isEmpty()) {
            problems.add(wrong.size() + " signals not consumed exactly once: " + wrong.subList(0, Math.min(EXAMPLES, wrong.size())));
        }
    }

    /** Nothing queued or pending in the inbox for a run that has finished. */
    private void checkLeftovers() throws Exception {
        List<String> queued = db.rows("""
                SELECT q.run_id, r.status, q.kind, q.node_id, q.attempt, q.lease_owner, q.available_at
                  FROM eec_queue_item q JOIN eec_workflow_run r ON r.run_id = q.run_id WHERE r.status <> 'RUNNING'""");
        List<String> inbox = db.rows("""
                SELECT i.run_id, r.status, i.kind, i.dedup_key FROM eec_run_inbox i JOIN eec_workflow_run r ON r.run_id = i.run_id
                 WHERE r.status <> 'RUNNING' AND i.consumed_at IS NULL""");
        figures.put("queue_left", queued.size());
        figures.put("inbox_left", inbox.size());
        if (!queued.isEmpty()) {
            problems.add(queued.size() + " queue rows left for finished runs: " + queued.subList(0, Math.min(EXAMPLES, queued.size())));
        }
        if (!inbox.isEmpty()) {
            problems.add(inbox.size() + " inbox rows never consumed for finished runs: " + inbox.subList(0, Math.min(EXAMPLES, inbox.size())));
        }
    }

    /** The flaky service refuses each run's first call, so each flaky step must have taken more than one attempt. */
    private void checkFlakySteps(Map<String, Map<String, String>> runs) {
        long flakyRuns = 0;
        long calls = 0;
        List<String> notRetried = new ArrayList<>();
        for (ChaosClients.Accepted start : clients.accepted()) {
            if (start.kind() != ChaosWorkflows.FLAKY || runs.get(start.runId()) == null) {
                continue;
            }
            flakyRuns++;
            int made = flaky.calls(start.key());
            calls += made;
            int attempts = ItHttp.tree(runs.get(start.runId()).get("node_states")).path("call").path("attempts").asInt();
            if ("SUCCEEDED".equals(runs.get(start.runId()).get("status")) && (attempts < 2 || made < 2)) {
                notRetried.add(start.runId() + ": " + attempts + " attempts, " + made + " calls");
            }
        }
        figures.put("flaky_runs", flakyRuns);
        // Two calls per run is the deterministic minimum (503, then 200); more means a kill or the crash cost a call.
        figures.put("flaky_calls_beyond_two", calls - 2 * flakyRuns);
        if (!notRetried.isEmpty()) {
            problems.add("flaky steps that succeeded without the retry their first 503 demands: " + notRetried);
        }
    }

    /**
     * Through the API, on every pod in turn: each run reads as SUCCEEDED with every node SUCCEEDED at the version the
     * database holds; the same start again is a 200 with the same run, and the same signal again a 200.
     */
    private void checkThroughTheApi(Map<String, Map<String, String>> runs) throws Exception {
        List<PodProcess> pods = fleet.ready();
        if (pods.isEmpty()) {
            problems.add("no pod ready for the API checks");
            return;
        }
        List<String> wrong = new ArrayList<>();
        int i = 0;
        for (ChaosClients.Accepted start : clients.accepted()) {
            Map<String, String> row = runs.get(start.runId());
            if (row == null) {
                continue; // lost, reported above
            }
            PodProcess pod = pods.get(i++ % pods.size());
            HttpResponse<String> got = ItHttp.get(pod, "/api/v1/runs/" + start.runId(), token);
            JsonNode run = ItHttp.tree(got.body());
            boolean nodesSucceeded = start.kind().nodes().stream()
                    .allMatch(node -> "SUCCEEDED".equals(run.path("nodes").path(node).path("state").asText()));
            if (got.statusCode() != 200 || !row.get("status").equals(run.path("status").asText())
                    || ("SUCCEEDED".equals(row.get("status")) && !nodesSucceeded)
                    || run.path("version").asLong() != Long.parseLong(row.get("db_record_version"))) {
                wrong.add("GET " + start.runId() + " on " + pod.name() + ": " + got.statusCode() + " " + got.body()
                        + " (database: " + row.get("status") + " v" + row.get("db_record_version") + ")");
            }
            JsonNode again = clients.once(pod, "/api/v1/workflows/" + start.kind().workflow + "/runs", start.body(), 200, wrong);
            if (again != null && !start.runId().equals(again.path("runId").asText())) {
                dup++;
                wrong.add("the start " + start.key() + " repeated on " + pod.name() + " answered run " + again.path("runId").asText()
                        + ", not " + start.runId());
            }
        }
        for (ChaosClients.Signalled signal : clients.signalled()) {
            PodProcess pod = pods.get(i++ % pods.size());
            clients.once(pod, "/api/v1/runs/" + signal.runId() + "/signals", signal.body(), 200, wrong);
        }
        HttpResponse<String> running = ItHttp.get(pods.get(0), "/api/v1/runs?status=RUNNING&limit=5", token);
        if (running.statusCode() != 200 || ItHttp.tree(running.body()).path("items").size() != 0) {
            wrong.add("GET /runs?status=RUNNING: " + running.statusCode() + " " + running.body());
        }
        figures.put("api_mismatches", wrong.size());
        if (!wrong.isEmpty()) {
            problems.add(wrong.size() + " API answers that contradict the database or the idempotency promise: "
                    + wrong.subList(0, Math.min(EXAMPLES, wrong.size())));
        }
    }

    /**
     * From the end of the last fault until the damage it did was repaired: {@code runs_recovered_s} until every run
     * accepted before it had finished (its last transition), {@code recovery_s} until, besides, every pod was ready
     * again (a killed pod's replacement booted). Both include what those runs still had to do anyway (a signal run
     * lives about 3 s).
     */
    private void recovery(long lastFaultAtMillis) throws Exception {
        if (lastFaultAtMillis == 0) {
            figures.put("runs_recovered_s", 0.0);
            figures.put("recovery_s", 0.0);
            return;
        }
        Map<String, String> finishedAt = new HashMap<>();
        for (Map<String, String> row : db.maps("SELECT CAST(run_id AS text) AS run_id,"
                + " CAST(floor(extract(epoch FROM max(at)) * 1000) AS bigint) AS last_ms FROM eec_run_transition GROUP BY run_id")) {
            finishedAt.put(row.get("run_id"), row.get("last_ms"));
        }
        long runsDoneAt = lastFaultAtMillis;
        for (ChaosClients.Accepted start : clients.accepted()) {
            String last = finishedAt.get(start.runId());
            if (start.acceptedAtMillis() <= lastFaultAtMillis && last != null) {
                runsDoneAt = Math.max(runsDoneAt, Long.parseLong(last));
            }
        }
        figures.put("runs_recovered_s", seconds(runsDoneAt - lastFaultAtMillis));
        figures.put("recovery_s", seconds(Math.max(runsDoneAt, fleet.lastReadyAtMillis()) - lastFaultAtMillis));
    }

    private static double seconds(long millis) {
        return Math.round(millis / 100.0) / 10.0;
    }
}
