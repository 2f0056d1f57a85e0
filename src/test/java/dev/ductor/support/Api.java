package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import io.restassured.RestAssured;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A small client for the API tests: tokens for one tenant (unique per {@link Api} unless named), JSON for
 * workflow definitions, and the assertions every error shares (RFC 9457 problem documents).
 */
final class Api {

    static final String PROBLEM_JSON = "application/problem+json";
    static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");
    private static final Duration TERMINAL_WAIT = Duration.ofSeconds(20);

    final DevTokenIssuer issuer;
    final String tenant;
    private final Map<String, String> tokens = new HashMap<>();

    Api(DevTokenIssuer issuer) {
        this(issuer, unique("tenant"));
    }

    Api(DevTokenIssuer issuer, String tenant) {
        this.issuer = issuer;
        this.tenant = tenant;
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    String token(String role) {
        return tokens.computeIfAbsent(role, r -> issuer.mint(r, tenant));
    }

    /** A request with this tenant's token for {@code role} and a JSON content type. */
    RequestSpecification as(String role) {
        return given().header("Authorization", "Bearer " + token(role)).contentType(ContentType.JSON);
    }

    // ---- workflows --------------------------------------------------------------------------------------

    Response putWorkflow(String name, String body) {
        return as("admin").body(body).put("/api/v1/workflows/{name}", name);
    }

    Response putWorkflow(String name, String body, String ifMatch) {
        return as("admin").header("If-Match", ifMatch).body(body).put("/api/v1/workflows/{name}", name);
    }

    Response getWorkflow(String name) {
        return as("client").get("/api/v1/workflows/{name}", name);
    }

    /** Creates a workflow and checks the 201. */
    void createWorkflow(String name, String definition) {
        Response response = putWorkflow(name, definition);
        assertEquals(201, response.statusCode(), () -> "creating " + name + ": " + response.asString());
    }

    /** Stores a new revision based on the current one. */
    void updateWorkflow(String name, String definition) {
        String etag = getWorkflow(name).then().statusCode(200).extract().header("ETag");
        Response response = putWorkflow(name, definition, etag);
        assertEquals(200, response.statusCode(), () -> "updating " + name + ": " + response.asString());
    }

    // ---- runs -------------------------------------------------------------------------------------------

    Response startRun(String workflow, String body) {
        return as("client").body(body).post("/api/v1/workflows/{name}/runs", workflow);
    }

    /** Starts a run with an empty body object and returns its id. */
    String start(String workflow) {
        return start(workflow, "{}");
    }

    String start(String workflow, String body) {
        Response response = startRun(workflow, body);
        assertEquals(201, response.statusCode(), () -> "starting " + workflow + ": " + response.asString());
        return response.jsonPath().getString("runId");
    }

    Response getRun(String runId) {
        return as("client").get("/api/v1/runs/{id}", runId);
    }

    Response history(String runId) {
        return as("client").get("/api/v1/runs/{id}/history", runId);
    }

    /** Polls the run until it is terminal (at most 20 s) and returns its last view. */
    JsonPath awaitTerminal(String runId) {
        long deadline = System.nanoTime() + TERMINAL_WAIT.toNanos();
        JsonPath run;
        do {
            Response response = getRun(runId);
            assertEquals(200, response.statusCode(), response::asString);
            run = response.jsonPath();
            if (TERMINAL.contains(run.getString("status"))) {
                return run;
            }
            sleep(100);
        } while (System.nanoTime() < deadline);
        fail("run " + runId + " is not terminal after " + TERMINAL_WAIT + ": " + run.prettify());
        return null;
    }

    // ---- concurrency ------------------------------------------------------------------------------------

    /**
     * Sends {@code threads} copies of one request at the same moment (all threads wait on one gate) and
     * returns every response. Uses the JDK client, not rest-assured, whose static configuration is shared.
     */
    List<HttpResponse<String>> concurrently(int threads, String role, String method, String path, String body,
                                            Map<String, String> headers) throws Exception {
        return concurrently(threads, role, method, path, body, headers, () -> { });
    }

    /** As above, running {@code whileInFlight} on this thread once every request has been sent. */
    List<HttpResponse<String>> concurrently(int threads, String role, String method, String path, String body,
                                            Map<String, String> headers, ThrowingRunnable whileInFlight) throws Exception {
        URI uri = URI.create(RestAssured.baseURI + ":" + RestAssured.port + path);
        String token = token(role);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<HttpResponse<String>>> futures = new ArrayList<>();
            for (int i = 0; i < threads; i++) {
                Callable<HttpResponse<String>> call = () -> {
                    HttpRequest.Builder request = HttpRequest.newBuilder(uri)
                            .timeout(Duration.ofSeconds(30))
                            .header("Authorization", "Bearer " + token)
                            .header("Content-Type", "application/json")
                            .method(method, HttpRequest.BodyPublishers.ofString(body));
                    headers.forEach(request::header);
                    HttpRequest built = request.build();
                    ready.countDown();
                    go.await();
                    return client.send(built, HttpResponse.BodyHandlers.ofString());
                };
                futures.add(pool.submit(call));
            }
            assertTrue(ready.await(10, TimeUnit.SECONDS), "threads ready");
            go.countDown();
            whileInFlight.run();
            List<HttpResponse<String>> responses = new ArrayList<>();
            for (Future<HttpResponse<String>> future : futures) {
                responses.add(future.get(60, TimeUnit.SECONDS));
            }
            return responses;
        } finally {
            pool.shutdownNow();
        }
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    static String describe(List<HttpResponse<String>> responses) {
        return responses.stream().map(r -> r.statusCode() + " " + r.headers().firstValue("Content-Type").orElse("-")
                + " " + r.body()).collect(Collectors.joining("\n"));
    }

    // ---- definitions ------------------------------------------------------------------------------------

    static String definition(String... nodes) {
        return "{\"nodes\": [" + String.join(", ", nodes) + "]}";
    }

    static String task(String id, String handler, String... dependsOn) {
        return "{\"id\": \"" + id + "\", \"type\": \"task\", \"handler\": \"" + handler + "\"" + deps(dependsOn) + "}";
    }

    static String node(String id, String type, String extra, String... dependsOn) {
        return "{\"id\": \"" + id + "\", \"type\": \"" + type + "\"" + (extra.isEmpty() ? "" : ", " + extra)
                + deps(dependsOn) + "}";
    }

    private static String deps(String... dependsOn) {
        if (dependsOn.length == 0) {
            return "";
        }
        return ", \"dependsOn\": [" + Arrays.stream(dependsOn).map(d -> "\"" + d + "\"").collect(Collectors.joining(", ")) + "]";
    }

    /** Three noop tasks a -> b -> c. */
    static String chain3() {
        return definition(task("a", "noop"), task("b", "noop", "a"), task("c", "noop", "b"));
    }

    // ---- assertions -------------------------------------------------------------------------------------

    /** Asserts an RFC 9457 problem with this status and returns its body. */
    static JsonPath problem(Response response, int status) {
        assertEquals(status, response.statusCode(), () -> "expected " + status + " but got " + response.statusCode()
                + ": " + response.asString());
        String contentType = response.contentType();
        assertNotNull(contentType, "a problem response needs a content type");
        assertTrue(contentType.startsWith(PROBLEM_JSON), () -> "expected " + PROBLEM_JSON + " but got '" + contentType
                + "' with body " + response.asString());
        JsonPath body = JsonPath.from(response.asString());
        assertEquals(status, body.getInt("status"), "the problem's status member");
        assertNotNull(body.getString("title"), "the problem's title");
        assertNotNull(body.getString("type"), "the problem's type");
        return body;
    }

    /** The path of a Location header, which may be absolute. */
    static String locationPath(Response response) {
        String location = response.header("Location");
        assertNotNull(location, "Location header");
        return URI.create(location).getPath();
    }

    static List<String> ids(JsonPath page) {
        return page.getList("items.runId", String.class);
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
