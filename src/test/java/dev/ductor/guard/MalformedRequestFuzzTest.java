package dev.ductor.guard;

import dev.ductor.support.Api;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Thousands of malformed requests across every route of the OpenAPI document, each definitely invalid (see
 * {@link MalformedRequests}), sent with real tokens of the right role so they get past authentication. None may be
 * answered 5xx, every 4xx must be an {@code application/problem+json} document, none may be accepted, and the
 * database must be exactly as before (row counts and a hash of every row of every {@code eec_*} table).
 *
 * <p>Runs without background loops ({@link ManualCoordination}), so nothing but these requests could change a row.
 * Reproducible: the seed is printed; {@code -Dguard.fuzz.seed=<n>} replays a run, {@code -Dguard.fuzz.requests=<n>}
 * sets the total.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class MalformedRequestFuzzTest {

    private static final long DEFAULT_SEED = 20261130L;
    // The random requests pick an operation each, uniformly: enough of them that every operation still gets its 20
    // (below) as operations are added.
    private static final int DEFAULT_REQUESTS = 4200;
    private static final int SHOWN = 40;

    @Inject
    DevTokenIssuer issuer;

    @Inject
    AgroalDataSource dataSource;

    private record Failure(String kind, MalformedRequests.Request request, Api.Reply reply) {

        String describe() {
            return kind + ": " + request.route() + " [" + request.category() + ": " + request.what() + "]\n      request:  "
                    + request.describe() + "\n      response: " + reply.excerpt();
        }
    }

    @Test
    void malformedRequestsAreRefusedWithProblemsAndChangeNothing() {
        for (String loop : List.of("ductor.coordinator.enabled", "ductor.worker.enabled", "ductor.worker.reaper-enabled",
                "ductor.watchdog.enabled")) {
            assertTrue(!ConfigProvider.getConfig().getOptionalValue(loop, Boolean.class).orElse(true),
                    loop + " must be false in this test's profile: a background writer would change rows the test compares");
        }
        long seed = Long.getLong("guard.fuzz.seed", DEFAULT_SEED);
        int total = Integer.getInteger("guard.fuzz.requests", DEFAULT_REQUESTS);
        System.out.println("[fuzz] seed " + seed + " (replay with -Dguard.fuzz.seed=" + seed + ")");
        Random random = new Random(seed);
        Api http = new Api(issuer);
        List<OpenApiRoutes.Operation> operations = OpenApiRoutes.fetch(http);
        GuardWorld world = GuardWorld.create(http, operations);
        MalformedRequests generator = new MalformedRequests(world, operations, random);

        Map<String, String> before = DbSnapshot.take(dataSource);
        long started = System.nanoTime();
        Map<Integer, Integer> statuses = new TreeMap<>();
        Map<String, Map<Integer, Integer>> byRoute = new TreeMap<>();
        Map<MalformedRequests.Category, Integer> byCategory = new TreeMap<>();
        List<Failure> failures = new ArrayList<>();
        List<java.util.function.Supplier<MalformedRequests.Request>> systematic = generator.systematic();
        int sent = 0;
        for (int i = 0; i < Math.max(total, systematic.size()); i++) {
            MalformedRequests.Request request = i < systematic.size() ? systematic.get(i).get() : generator.random();
            Api.Reply reply = http.send(request.method(), request.path(), request.headers(), request.body());
            sent++;
            statuses.merge(reply.status(), 1, Integer::sum);
            byRoute.computeIfAbsent(request.route(), r -> new TreeMap<>()).merge(reply.status(), 1, Integer::sum);
            byCategory.merge(request.category(), 1, Integer::sum);
            String kind = judge(reply);
            if (kind != null) {
                failures.add(new Failure(kind, request, reply));
                if (reply.status() < 400) {
                    generator.forgetVersions();
                }
            }
        }
        long millis = (System.nanoTime() - started) / 1_000_000;
        String changed = DbSnapshot.diff(before, DbSnapshot.take(dataSource));

        System.out.println("[fuzz] sent " + sent + " malformed requests (" + systematic.size() + " systematic, "
                + (sent - systematic.size()) + " random) to " + operations.size() + " operations in " + millis + " ms");
        System.out.println("[fuzz] status codes: " + statuses);
        System.out.println("[fuzz] by category: " + byCategory);
        byRoute.forEach((route, codes) -> System.out.println("[fuzz]   " + route + " -> " + codes));
        System.out.println("[fuzz] database " + (changed.isEmpty() ? "unchanged (" + before.size() + " eec_* tables)" : "CHANGED:" + changed));

        assertTrue(sent >= 3000 || total < 3000, "only " + sent + " requests were sent");
        List<String> untouched = operations.stream().map(Object::toString).filter(op -> byRoute.getOrDefault(op, Map.of())
                .values().stream().mapToInt(Integer::intValue).sum() < 20).toList();
        assertTrue(untouched.isEmpty(), "operations that got fewer than 20 malformed requests: " + untouched);

        if (!failures.isEmpty() || !changed.isEmpty()) {
            Map<String, List<Failure>> grouped = failures.stream().collect(Collectors.groupingBy(
                    f -> f.kind() + " | " + f.request().route() + " | " + f.request().category(), TreeMap::new, Collectors.toList()));
            StringBuilder message = new StringBuilder(failures.size() + " of " + sent + " malformed requests were mishandled"
                    + " (seed " + seed + ")");
            message.append("\n  by kind, route and category (with what was broken):");
            grouped.forEach((key, list) -> message.append("\n    ").append(list.size()).append(" x ").append(key).append(": ")
                    .append(list.stream().map(f -> f.request().what() + " -> " + f.reply().status()).distinct().limit(8)
                            .collect(Collectors.joining("; "))).append(list.stream().map(f -> f.request().what()).distinct().count() > 8 ? "; ..." : ""));
            message.append("\n  first ").append(Math.min(SHOWN, failures.size())).append(" (one per group first):");
            List<Failure> shown = new ArrayList<>();
            grouped.values().forEach(list -> shown.add(list.get(0)));
            failures.stream().filter(f -> !shown.contains(f)).limit(Math.max(0, SHOWN - shown.size())).forEach(shown::add);
            shown.stream().limit(SHOWN).forEach(f -> message.append("\n    - ").append(f.describe()));
            if (!changed.isEmpty()) {
                message.append("\n  and the database changed:").append(changed);
            }
            System.out.println("[fuzz] " + message);
            fail(message.toString());
        }
    }

    /** Null when the reply is a proper refusal; otherwise what is wrong with it. */
    private static String judge(Api.Reply reply) {
        if (reply.status() >= 500) {
            return "5xx";
        }
        if (reply.status() < 400) {
            return "accepted";
        }
        if (!reply.isProblem()) {
            return "4xx without problem+json";
        }
        JsonNode problem = reply.json();
        if (problem == null || problem.path("status").asInt() != reply.status() || !problem.hasNonNull("title")) {
            return "malformed problem document";
        }
        return null;
    }

    /**
     * A number beyond what a double holds is valid JSON. Ductor must either refuse it or keep it as that number; it
     * must not store something else in its place (today: the string "Infinity").
     */
    @Test
    void aNumberBeyondDoubleRangeIsRefusedOrKeptAsSentNeverReplaced() {
        Api http = new Api(issuer);
        GuardWorld world = GuardWorld.create(http, OpenApiRoutes.fetch(http));
        String path = "/api/v1/workflows/" + world.workflow + "/runs";
        Api.Reply reply = http.send("POST", path, http.jsonHeaders(ContractRoutes.CLIENT, world.tenant), "{\"input\":{\"amount\":1e400}}");
        if (reply.status() == 400 || reply.status() == 422) {
            assertTrue(reply.isProblem(), reply.excerpt());
            return;
        }
        if (reply.status() != 201) {
            fail("POST " + path + " with {\"input\":{\"amount\":1e400}}: expected 400/422, or 201 keeping the number, but got "
                    + reply.excerpt());
        }
        JsonNode amount = reply.json().path("input").path("amount");
        assertTrue(amount.isNumber(), "POST " + path + " with {\"input\":{\"amount\":1e400}} answered 201 and stored input.amount = "
                + amount + " (" + amount.getNodeType() + "), not the number that was sent: " + reply.excerpt());
    }

    /**
     * Limits of the HTTP layer (1 MiB bodies, 20 KiB of headers, 4 KiB request lines) are refused before Ductor's code
     * runs. They must be 4xx, never 5xx; what content type they carry is printed (the contract asks for problem+json
     * everywhere under /api/v1, which the HTTP layer does not produce).
     */
    @Test
    void requestsBeyondTheHttpLayersLimitsAre4xx() {
        Api http = new Api(issuer);
        GuardWorld world = GuardWorld.create(http, OpenApiRoutes.fetch(http));
        Map<String, String> header = http.jsonHeaders(ContractRoutes.ADMIN, world.tenant);
        header.put("If-Match", "\"" + "9".repeat(30_000) + "\"");
        Map<String, Api.Reply> replies = new LinkedHashMap<>();
        replies.put("a 2 MiB body", http.send("POST", "/api/v1/workflows/" + world.workflow + "/runs",
                http.jsonHeaders(ContractRoutes.CLIENT, world.tenant), "{\"input\":" + ContractRoutes.longString(2 * 1024 * 1024) + "}"));
        replies.put("a 30 KB If-Match header", http.send("PUT", "/api/v1/workflows/" + world.workflow, header, world.gateDefinition("")));
        replies.put("a 10 KB path", http.send("GET", "/api/v1/runs/" + "a".repeat(10_000), http.jsonHeaders(ContractRoutes.CLIENT, world.tenant),
                (byte[]) null));
        List<String> problems = new ArrayList<>();
        replies.forEach((what, reply) -> {
            System.out.println("[fuzz] HTTP layer limit, " + what + ": " + reply.excerpt());
            if (reply.status() < 400 || reply.status() >= 500) {
                problems.add(what + ": expected a 4xx but got " + reply.excerpt());
            }
        });
        assertTrue(problems.isEmpty(), String.join("\n", problems));
    }
}
