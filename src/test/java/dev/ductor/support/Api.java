package dev.ductor.support;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.security.DevTokenIssuer;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import io.restassured.RestAssured;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
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
 * The one HTTP client of the in-process tests (those that boot Quarkus and call its HTTP API): tokens minted with
 * the dev key for one tenant (unique per {@link Api} unless named) or any other, rest-assured requests with them,
 * the calls most tests make (workflows, runs, pools), a raw JDK client for bytes exactly as sent ({@link #send}) and
 * for concurrent requests, JSON for workflow definitions, and the assertions every error shares (RFC 9457 problem
 * documents). The multi-JVM ITs talk to pods of their own through {@code it/ItHttp}.
 */
public final class Api {

    public static final String PROBLEM_JSON = "application/problem+json";
    public static final Set<String> TERMINAL = Set.of("SUCCEEDED", "FAILED", "CANCELLED");
    public static final ObjectMapper MAPPER = new ObjectMapper();
    private static final Duration TERMINAL_WAIT = Duration.ofSeconds(20);
    private static final Duration STATUS_WAIT = Duration.ofSeconds(30);
    /** HTTP/1.1 and no client-side "help": rest-assured would fix up content types and encode bodies. */
    private static final HttpClient RAW = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();

    public final DevTokenIssuer issuer;
    public final String tenant;
    private final Map<String, String> tokens = new ConcurrentHashMap<>();

    public Api(DevTokenIssuer issuer) {
        this(issuer, unique("t"));
    }

    public Api(DevTokenIssuer issuer, String tenant) {
        this.issuer = issuer;
        this.tenant = tenant;
    }

    public static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public String token(String role) {
        return token(role, tenant);
    }

    /** A token for {@code role} of any tenant, minted once and cached. */
    public String token(String role, String tenant) {
        return tokens.computeIfAbsent(role + "@" + tenant, k -> issuer.mint(role, tenant));
    }

    /** A request with this tenant's token for {@code role} and a JSON content type. */
    public RequestSpecification as(String role) {
        return given().header("Authorization", "Bearer " + token(role)).contentType(ContentType.JSON);
    }

    // ---- workflows --------------------------------------------------------------------------------------

    public Response putWorkflow(String name, String body) {
        return as("admin").body(body).put("/api/v1/workflows/{name}", name);
    }

    public Response putWorkflow(String name, String body, String ifMatch) {
        return as("admin").header("If-Match", ifMatch).body(body).put("/api/v1/workflows/{name}", name);
    }

    public Response getWorkflow(String name) {
        return as("client").get("/api/v1/workflows/{name}", name);
    }

    /** Creates a workflow and checks the 201. */
    public void createWorkflow(String name, String definition) {
        Response response = putWorkflow(name, definition);
        assertEquals(201, response.statusCode(), () -> "creating " + name + ": " + response.asString());
    }

    /** Stores a new revision based on the current one. */
    public void updateWorkflow(String name, String definition) {
        String etag = getWorkflow(name).then().statusCode(200).extract().header("ETag");
        Response response = putWorkflow(name, definition, etag);
        assertEquals(200, response.statusCode(), () -> "updating " + name + ": " + response.asString());
    }

    // ---- runs -------------------------------------------------------------------------------------------

    public Response startRun(String workflow, String body) {
        return as("client").body(body).post("/api/v1/workflows/{name}/runs", workflow);
    }

    /** Starts a run with an empty body object and returns its id. */
    public String start(String workflow) {
        return start(workflow, "{}");
    }

    public String start(String workflow, String body) {
        Response response = startRun(workflow, body);
        assertEquals(201, response.statusCode(), () -> "starting " + workflow + ": " + response.asString());
        return response.jsonPath().getString("runId");
    }

    public Response run(String runId) {
        return as("client").get("/api/v1/runs/{id}", runId);
    }

    public Response history(String runId) {
        return as("client").get("/api/v1/runs/{id}/history", runId);
    }

    /** Polls the run until it is terminal (at most 20 s) and returns its last view. */
    public JsonPath awaitTerminal(String runId) {
        long deadline = System.nanoTime() + TERMINAL_WAIT.toNanos();
        JsonPath run;
        do {
            Response response = run(runId);
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

    /**
     * Polls the run until it has status {@code wanted} (at most 30 s) and returns the status it last had, so that
     * the caller's assertEquals shows what it was instead.
     */
    public String awaitStatus(String runId, String wanted) {
        long deadline = System.nanoTime() + STATUS_WAIT.toNanos();
        String status = null;
        while (System.nanoTime() < deadline) {
            status = run(runId).path("status");
            if (wanted.equals(status)) {
                return status;
            }
            sleep(50);
        }
        return status;
    }

    /** As {@link #awaitStatus}, for one node's state ({@code nodes.<node>.state}). */
    public String awaitNode(String runId, String node, String wanted) {
        long deadline = System.nanoTime() + STATUS_WAIT.toNanos();
        String state = null;
        while (System.nanoTime() < deadline) {
            state = run(runId).path("nodes." + node + ".state");
            if (wanted.equals(state)) {
                return state;
            }
            sleep(50);
        }
        return state;
    }

    /** Creates a workflow of a new, unique name and returns the name. */
    public String define(String definition) {
        String name = unique("wf");
        createWorkflow(name, definition);
        return name;
    }

    // ---- pools ------------------------------------------------------------------------------------------

    public Response putPool(String name, String body) {
        return as("admin").body(body).put("/api/v1/pools/{name}", name);
    }

    public Response putPool(String name, String body, String ifMatch) {
        return as("admin").header("If-Match", ifMatch).body(body).put("/api/v1/pools/{name}", name);
    }

    public Response getPool(String name) {
        return as("admin").get("/api/v1/pools/{name}", name);
    }

    public Response poolEvents(String name) {
        return as("admin").get("/api/v1/pools/{name}/events", name);
    }

    /** Creates the pool and checks the 201. */
    public void createPool(String name, int capacity, boolean paused) {
        Response created = putPool(name, "{\"capacity\": " + capacity + ", \"paused\": " + paused + "}");
        assertEquals(201, created.statusCode(), created::asString);
    }

    /** Changes the pool from the version its GET shows and checks the 200. */
    public void updatePool(String name, String body) {
        String etag = getPool(name).then().statusCode(200).extract().header("ETag");
        Response updated = putPool(name, body, etag);
        assertEquals(200, updated.statusCode(), updated::asString);
    }

    /** A pool PUT with the JDK client, for threads (rest-assured's configuration is static). */
    public HttpResponse<String> putPoolConcurrently(HttpClient client, String name, String body, String ifMatch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + "/api/v1/pools/" + name))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token("admin"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    // ---- raw requests -----------------------------------------------------------------------------------

    /** Headers for a JSON request as {@code role} of {@code tenant} (role null: no Authorization header). */
    public Map<String, String> jsonHeaders(String role, String tenant) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (role != null) {
            headers.put("Authorization", "Bearer " + token(role, tenant));
        }
        headers.put("Content-Type", "application/json");
        return headers;
    }

    /** Raw bytes in (null: no body), status, content type, ETag and body out; safe from many threads. */
    public Reply send(String method, String path, Map<String, String> headers, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base() + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        try {
            HttpResponse<String> response = RAW.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.headers().firstValue("ETag").orElse(null), response.body());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(method + " " + path + " interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + path + " could not be sent: " + e, e);
        }
    }

    public Reply send(String method, String path, Map<String, String> headers, String body) {
        return send(method, path, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    public Reply get(String path, String role, String tenant) {
        return send("GET", path, jsonHeaders(role, tenant), (byte[]) null);
    }

    private static String base() {
        return RestAssured.baseURI + ":" + RestAssured.port;
    }

    /** One path segment, percent-encoded (a space is %20, a slash %2F). */
    public static String segment(String raw) {
        return URLEncoder.encode(raw, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The text as JSON, or null when it is not JSON. */
    public static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (Exception e) {
            return null;
        }
    }

    public record Reply(int status, String contentType, String etag, String body) {

        public boolean isProblem() {
            return contentType != null && contentType.toLowerCase().startsWith(PROBLEM_JSON);
        }

        public JsonNode json() {
            return parse(body);
        }

        public String excerpt() {
            String text = body == null ? "" : body.replaceAll("\\s+", " ");
            return status + " " + (contentType.isEmpty() ? "(no content type)" : contentType) + " "
                    + (text.length() > 400 ? text.substring(0, 400) + "..." : text);
        }
    }

    // ---- concurrency ------------------------------------------------------------------------------------

    /**
     * Sends {@code threads} copies of one request at the same moment (all threads wait on one gate) and
     * returns every response. Uses the JDK client, not rest-assured, whose static configuration is shared.
     */
    public List<HttpResponse<String>> concurrently(int threads, String role, String method, String path, String body,
                                            Map<String, String> headers) throws Exception {
        return concurrently(threads, role, method, path, body, headers, () -> { });
    }

    /** As above, running {@code whileInFlight} on this thread once every request has been sent. */
    public List<HttpResponse<String>> concurrently(int threads, String role, String method, String path, String body,
                                            Map<String, String> headers, ThrowingRunnable whileInFlight) throws Exception {
        URI uri = URI.create(base() + path);
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

    public interface ThrowingRunnable {
        void run() throws Exception;
    }

    public static String describe(List<HttpResponse<String>> responses) {
        return responses.stream().map(r -> r.statusCode() + " " + r.headers().firstValue("Content-Type").orElse("-")
                + " " + r.body()).collect(Collectors.joining("\n"));
    }

    // ---- definitions ------------------------------------------------------------------------------------

    public static String definition(String... nodes) {
        return "{\"nodes\": [" + String.join(", ", nodes) + "]}";
    }

    public static String task(String id, String handler, String... dependsOn) {
        return "{\"id\": \"" + id + "\", \"type\": \"task\", \"handler\": \"" + handler + "\"" + deps(dependsOn) + "}";
    }

    public static String node(String id, String type, String extra, String... dependsOn) {
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
    public static String chain3() {
        return definition(task("a", "noop"), task("b", "noop", "a"), task("c", "noop", "b"));
    }

    // ---- assertions -------------------------------------------------------------------------------------

    /** Asserts an RFC 9457 problem with this status and returns its body. */
    public static JsonPath problem(Response response, int status) {
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
    public static String locationPath(Response response) {
        String location = response.header("Location");
        assertNotNull(location, "Location header");
        return URI.create(location).getPath();
    }

    public static List<String> ids(JsonPath page) {
        return page.getList("items.runId", String.class);
    }

    public static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
