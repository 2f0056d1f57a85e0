package dev.ductor.guard;

import dev.ductor.support.Api;
import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.ManualCoordination;
import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Walks every PUT, POST, PATCH and DELETE under {@code /api/v1} that the running application documents in its
 * OpenAPI document (so routes added later are walked too) and proves, per route: no token or a bad one is a 401
 * problem, every role the contract does not allow is a 403 problem, and the allowed role gets past authorization.
 * Denied requests change nothing in the database. For the contract's version-checked updates (PUT of a workflow,
 * pool or rule, PATCH of a run): no If-Match is a 428, a stale one a 409 that carries {@code current} and
 * {@code rejected} and says the change was not saved, and the resource reads back exactly as before.
 *
 * <p>Roles and version checks are not in the OpenAPI document; {@link ContractRoutes} holds them per CONTRACT §3,
 * and a mutating route missing from it fails {@link #everyMutatingRouteIsInTheContractTable()}.
 */
@QuarkusTest
@TestProfile(ManualCoordination.class)
@Tag("api")
class MutatingRouteWalkTest {

    private static final String PROBLEM = Api.PROBLEM_JSON;

    @Inject
    DevTokenIssuer issuer;

    @Inject
    AgroalDataSource dataSource;

    private static Api http;
    private static List<OpenApiRoutes.Operation> operations;
    private static GuardWorld world;

    @BeforeEach
    void world() {
        if (world == null) {
            http = new Api(issuer);
            operations = OpenApiRoutes.fetch(http);
            world = GuardWorld.create(http, operations);
            System.out.println("[route walk] mutating routes served: " + mutating().map(Object::toString).toList());
            List<String> notServed = ContractRoutes.MUTATING.stream()
                    .filter(r -> operations.stream().noneMatch(op -> op.key().equals(r.key())))
                    .map(ContractRoutes.Rule::key).toList();
            System.out.println("[route walk] contract routes not served (yet): " + notServed);
        }
    }

    private static Stream<OpenApiRoutes.Operation> mutating() {
        return operations.stream().filter(OpenApiRoutes.Operation::mutating);
    }

    @Test
    void everyMutatingRouteIsInTheContractTable() {
        List<String> missing = mutating().filter(op -> ContractRoutes.find(op).isEmpty()).map(Object::toString).toList();
        assertTrue(missing.isEmpty(), "mutating routes served but missing from ContractRoutes.MUTATING: " + missing
                + ". Add each with the role CONTRACT §3 gives it and whether it is a version-checked update, so the walk"
                + " checks its 401/403 (and 428/409).");
        assertTrue(mutating().findAny().isPresent(), "the OpenAPI document lists no mutating route under /api/v1");
    }

    // ---- authentication and authorization ------------------------------------------------------------------------

    @TestFactory
    Stream<DynamicTest> withoutAValidTokenEveryMutatingRouteIs401() {
        return mutating().map(op -> DynamicTest.dynamicTest(op.toString(), () -> {
            String admin = http.token(ContractRoutes.ADMIN, world.tenant);
            Map<String, String> variants = new LinkedHashMap<>();
            variants.put("no Authorization header", null);
            variants.put("Bearer garbage", "Bearer garbage");
            variants.put("Bearer with an empty token", "Bearer ");
            variants.put("Basic credentials", "Basic YWRtaW46YWRtaW4=");
            variants.put("a real token with a tampered signature", "Bearer " + admin.substring(0, admin.length() - 6) + "AAAAAA");
            Map<String, String> before = DbSnapshot.take(dataSource);
            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, String> variant : variants.entrySet()) {
                Map<String, String> headers = validHeaders(op, ContractRoutes.ADMIN);
                headers.remove("Authorization");
                if (variant.getValue() != null) {
                    headers.put("Authorization", variant.getValue());
                }
                Api.Reply reply = http.send(op.method(), world.path(op, Map.of()), headers, validBody(op));
                expectProblem(problems, op + " with " + variant.getKey(), reply, 401);
            }
            String changed = DbSnapshot.diff(before, DbSnapshot.take(dataSource));
            if (!changed.isEmpty()) {
                problems.add(op + ": requests without a valid token changed the database:" + changed);
            }
            failIfAny(problems);
        }));
    }

    @TestFactory
    Stream<DynamicTest> everyRoleTheContractDoesNotAllowIs403() {
        return mutating().map(op -> DynamicTest.dynamicTest(op.toString(), () -> {
            Optional<ContractRoutes.Rule> rule = ContractRoutes.find(op);
            if (rule.isEmpty()) {
                fail(op + " is not in ContractRoutes.MUTATING, so nobody knows which role may call it");
            }
            List<String> problems = new ArrayList<>();
            Map<String, String> before = DbSnapshot.take(dataSource);
            for (String role : ContractRoutes.ROLES) {
                if (rule.get().roles().contains(role)) {
                    continue;
                }
                Api.Reply reply = http.send(op.method(), world.path(op, Map.of()), validHeaders(op, role), validBody(op));
                expectProblem(problems, op + " as " + role + " (allowed: " + rule.get().roles() + ") with a valid request",
                        reply, 403);
            }
            String changed = DbSnapshot.diff(before, DbSnapshot.take(dataSource));
            if (!changed.isEmpty()) {
                problems.add(op + ": requests of roles that may not call it changed the database:" + changed);
            }
            // The allowed role gets past authorization: a request it sends that is refused for its content (a broken
            // body, or a run that does not exist) is not a 401 or 403. Nothing is changed by it either.
            for (String role : rule.get().roles()) {
                boolean hasBody = rule.get().body().use() != ContractRoutes.BodyUse.NONE;
                Map<String, String> overrides = new LinkedHashMap<>();
                if (!hasBody) {
                    op.pathParams().forEach(p -> overrides.put(p, UUID.randomUUID().toString()));
                }
                Api.Reply reply = http.send(op.method(), world.path(op, overrides), validHeaders(op, role),
                        hasBody ? "{" : null);
                if (reply.status() == 401 || reply.status() == 403 || reply.status() < 400) {
                    problems.add(op + " as its allowed role " + role + " with " + (hasBody ? "the body '{'" : "an unknown id")
                            + ": expected a 4xx about the request (not 401/403) but got " + reply.excerpt());
                }
            }
            failIfAny(problems);
        }));
    }

    // ---- version-checked updates ---------------------------------------------------------------------------------

    @TestFactory
    Stream<DynamicTest> versionCheckedUpdatesRefuseMissingAndStaleIfMatchAndKeepTheResource() {
        return ContractRoutes.MUTATING.stream()
                .filter(r -> r.versioned() != ContractRoutes.Versioned.NONE)
                .map(rule -> DynamicTest.dynamicTest(rule.key(), () -> {
                    Assumptions.assumeTrue(operations.stream().anyMatch(op -> op.key().equals(rule.key())),
                            rule.key() + " is not served (yet)");
                    if (operations.stream().noneMatch(op -> op.key().equals("GET " + rule.versioned().read))) {
                        fail(rule.key() + " is served but GET " + rule.versioned().read
                                + " is not, so a client cannot read the version it must send back");
                    }
                    checkVersioned(rule, resource(rule));
                }));
    }

    /** A fresh resource for one version check: where to send the edit and three valid bodies. */
    private record Resource(String path, String read, String update, String rejected) {
    }

    private Resource resource(ContractRoutes.Rule rule) {
        String name = "gv-" + GuardWorld.shortId();
        switch (rule.versioned()) {
            case WORKFLOW -> {
                String path = "/api/v1/workflows/" + name;
                GuardWorld.expect(201, http.send("PUT", path, http.jsonHeaders(ContractRoutes.ADMIN, world.tenant),
                        world.gateDefinition("")), "PUT " + path);
                return new Resource(path, path, world.gateDefinition(",\"timeout\":\"PT1H\""),
                        world.gateDefinition(",\"timeout\":\"PT9H\""));
            }
            case RUN -> {
                String path = "/api/v1/runs/" + world.startWaitingRun(world.tenant, world.workflow);
                return new Resource(path, path, "{\"tier\":\"bulk\"}", "{\"tier\":\"interactive\"}");
            }
            case POOL -> {
                String path = "/api/v1/pools/" + name;
                GuardWorld.expect(201, http.send("PUT", path, http.jsonHeaders(ContractRoutes.ADMIN, world.tenant),
                        ContractRoutes.poolBody(3, false)), "PUT " + path);
                return new Resource(path, path, ContractRoutes.poolBody(4, false), ContractRoutes.poolBody(9, true));
            }
            case RULE -> {
                String path = "/api/v1/rules/" + name;
                GuardWorld.expect(201, http.send("PUT", path, http.jsonHeaders(ContractRoutes.ADMIN, world.tenant),
                        ContractRoutes.ruleBody(world.workflow, "guard.created")), "PUT " + path);
                return new Resource(path, path, ContractRoutes.ruleBody(world.workflow, "guard.updated"),
                        ContractRoutes.ruleBody(world.workflow, "guard.rejected"));
            }
            case SCHEDULE -> {
                String path = "/api/v1/schedules/" + name;
                GuardWorld.expect(201, http.send("PUT", path, http.jsonHeaders(ContractRoutes.ADMIN, world.tenant),
                        ContractRoutes.scheduleBody(world.workflow, "0 0 3 1 1 ?", true)), "PUT " + path);
                return new Resource(path, path, ContractRoutes.scheduleBody(world.workflow, "0 0 4 1 1 ?", true),
                        ContractRoutes.scheduleBody(world.workflow, "0 0 5 1 1 ?", true));
            }
            default -> throw new IllegalArgumentException(rule.key());
        }
    }

    private void checkVersioned(ContractRoutes.Rule rule, Resource resource) {
        String role = rule.roles().iterator().next();
        String route = rule.method() + " " + resource.path();
        List<String> problems = new ArrayList<>();

        // The version travels to the client and back: the edit that names the current version is accepted.
        String first = read(resource).etag();
        Api.Reply accepted = edit(rule, resource, role, first, resource.update());
        if (accepted.status() != 200 || accepted.etag() == null || accepted.etag().equals(first)) {
            fail(route + " with If-Match " + first + " (the current ETag) and " + resource.update()
                    + ": expected 200 with a new ETag but got " + accepted.excerpt() + " ETag=" + accepted.etag());
        }
        Api.Reply before = read(resource);
        long current = version(before.etag());
        Map<String, String> database = DbSnapshot.take(dataSource);

        Api.Reply missing = edit(rule, resource, role, null, resource.rejected());
        expectProblem(problems, route + " without If-Match, body " + resource.rejected(), missing, 428);
        expectUnchanged(problems, route + " without If-Match", resource, before);

        Api.Reply stale = edit(rule, resource, role, first, resource.rejected());
        String staleRequest = route + " with the stale If-Match " + first + " (current " + before.etag() + "), body "
                + resource.rejected();
        if (expectProblem(problems, staleRequest, stale, 409)) {
            JsonNode problem = stale.json();
            JsonNode currentMember = problem.get("current");
            if (currentMember == null || currentMember.isNull()) {
                problems.add(staleRequest + ": the 409 has no 'current' member: " + stale.excerpt());
            } else {
                if (!currentMember.equals(before.json())) {
                    problems.add(staleRequest + ": 'current' is not the resource as it is now.\n    current: "
                            + currentMember + "\n    GET:     " + before.body());
                }
                if (!currentMember.path("version").isMissingNode() && currentMember.path("version").asLong() != current) {
                    problems.add(staleRequest + ": current.version is " + currentMember.path("version") + ", the ETag says " + current);
                }
            }
            JsonNode rejected = problem.get("rejected");
            if (rejected == null || !rejected.equals(Api.parse(resource.rejected()))) {
                problems.add(staleRequest + ": 'rejected' must be exactly what was sent (the user's input is kept), but is "
                        + rejected);
            }
            String detail = problem.path("detail").asText("");
            if (!detail.matches("(?is).*\\bnot\\s+(been\\s+)?saved\\b.*")) {
                problems.add(staleRequest + ": the detail must say plainly that the change was not saved, but is: " + detail);
            }
            if (problem.has("saved") && problem.get("saved").asBoolean(true)) {
                problems.add(staleRequest + ": 'saved' is " + problem.get("saved"));
            }
        }
        expectUnchanged(problems, staleRequest, resource, before);

        String ahead = "\"" + (current + 100) + "\"";
        expectProblem(problems, route + " with If-Match " + ahead + " (a version that does not exist yet)",
                edit(rule, resource, role, ahead, resource.rejected()), 409);
        expectUnchanged(problems, route + " with If-Match " + ahead, resource, before);

        Api.Reply wildcard = edit(rule, resource, role, "*", resource.rejected());
        if (wildcard.status() < 400 || wildcard.status() >= 500 || !wildcard.isProblem()) {
            problems.add(route + " with If-Match * (which would skip the version check): expected a 4xx problem but got "
                    + wildcard.excerpt());
        }
        expectUnchanged(problems, route + " with If-Match *", resource, before);

        String changed = DbSnapshot.diff(database, DbSnapshot.take(dataSource));
        if (!changed.isEmpty()) {
            problems.add(route + ": the refused edits changed the database:" + changed);
        }
        System.out.println("[route walk] " + rule.key() + ": 428 without If-Match, 409 stale/ahead, * refused, resource "
                + resource.path() + " unchanged at " + before.etag() + (problems.isEmpty() ? "" : " -- " + problems.size() + " problem(s)"));
        failIfAny(problems);
    }

    private Api.Reply edit(ContractRoutes.Rule rule, Resource resource, String role, String ifMatch, String body) {
        Map<String, String> headers = http.jsonHeaders(role, world.tenant);
        if (ifMatch != null) {
            headers.put("If-Match", ifMatch);
        }
        return http.send(rule.method(), resource.path(), headers, body);
    }

    private Api.Reply read(Resource resource) {
        return GuardWorld.expect(200, http.get(resource.read(), ContractRoutes.ADMIN, world.tenant), "GET " + resource.read());
    }

    private void expectUnchanged(List<String> problems, String after, Resource resource, Api.Reply before) {
        Api.Reply now = read(resource);
        if (!String.valueOf(now.etag()).equals(before.etag()) || !Api.parse(now.body()).equals(before.json())) {
            problems.add("after " + after + ", GET " + resource.read() + " changed.\n    before: ETag " + before.etag() + " "
                    + before.body() + "\n    after:  ETag " + now.etag() + " " + now.body());
        }
    }

    private static long version(String etag) {
        return Long.parseLong(etag.replace("W/", "").replace("\"", "").trim());
    }

    // ---- helpers -------------------------------------------------------------------------------------------------

    /** A request that only its token could make fail: the right content type and, for versioned routes, If-Match. */
    private Map<String, String> validHeaders(OpenApiRoutes.Operation op, String role) {
        Map<String, String> headers = http.jsonHeaders(role, world.tenant);
        ContractRoutes.find(op).ifPresent(rule -> {
            String etag = world.currentEtag(rule.versioned());
            if (etag != null) {
                headers.put("If-Match", etag);
            }
        });
        return headers;
    }

    private String validBody(OpenApiRoutes.Operation op) {
        return ContractRoutes.find(op).map(rule -> rule.validBody().apply(world)).orElse(op.hasBody() ? "{}" : null);
    }

    /** Records a problem unless the reply has this status and is an RFC 9457 problem; true when it is. */
    private static boolean expectProblem(List<String> problems, String request, Api.Reply reply, int status) {
        if (reply.status() != status) {
            problems.add(request + ": expected " + status + " but got " + reply.excerpt());
            return false;
        }
        if (!reply.isProblem()) {
            problems.add(request + ": expected Content-Type " + PROBLEM + " but got " + reply.excerpt());
            return false;
        }
        JsonNode body = reply.json();
        if (body == null || body.path("status").asInt() != status || !body.hasNonNull("title")) {
            problems.add(request + ": the problem document lacks status " + status + " or a title: " + reply.excerpt());
            return false;
        }
        return true;
    }

    private static void failIfAny(List<String> problems) {
        if (!problems.isEmpty()) {
            fail(problems.size() + " problem(s):\n  - " + String.join("\n  - ", problems));
        }
    }
}
