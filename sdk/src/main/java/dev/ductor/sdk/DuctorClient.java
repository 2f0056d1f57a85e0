package dev.ductor.sdk;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * A client of Ductor's REST API ({@code /api/v1}): workflows, runs, pools, rules, schedules and events; {@link #tasks()} is the
 * external workers' task API that {@link dev.ductor.sdk.worker.DuctorWorker} builds on. Thread-safe; one per
 * application is enough. Errors are {@link DuctorException}s, typed by status.
 *
 * <pre>{@code
 * DuctorClient client = DuctorClient.builder().baseUri("http://localhost:8080").tokenFile(Path.of(".ductor/dev-tokens/client.jwt")).build();
 * Run run = client.startRun("chain3", Map.of("order", 42), StartOptions.key("order-42"));
 * Run done = client.awaitRun(run.runId(), Duration.ofMinutes(1));
 * }</pre>
 */
public final class DuctorClient {

    private static final String JSON = "application/json";

    private final URI base;
    private final Supplier<String> token;
    private final ObjectMapper mapper;
    private final HttpClient http;
    private final Duration requestTimeout;
    private final int unavailableRetries;
    private final Duration maxPollInterval;
    /** Set once the server answered that it has no run event stream: later waits poll at once. */
    private volatile boolean noEventStream;

    private DuctorClient(Builder builder) {
        String uri = builder.baseUri.toString();
        this.base = URI.create(uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri);
        this.token = builder.token;
        this.mapper = builder.mapper;
        this.requestTimeout = builder.requestTimeout;
        this.unavailableRetries = builder.unavailableRetries;
        this.maxPollInterval = builder.maxPollInterval;
        this.http = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(builder.connectTimeout)
                .build();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The mapper that reads and writes bodies (the builder's, or a default with java.time support). */
    public ObjectMapper mapper() {
        return mapper;
    }

    public URI baseUri() {
        return base;
    }

    // ---- workflows ---------------------------------------------------------------------------------------------

    /**
     * Creates the workflow ({@code ifMatch} null) or stores a new revision of it ({@code ifMatch}: the version you
     * read). Updating without it is a {@link PreconditionRequiredException}; with a stale one a {@link ConflictException}.
     */
    public Versioned putWorkflow(String name, JsonNode definition, Long ifMatch) {
        Response response = exchange("PUT", "/workflows/" + segment(name), definition, ifMatch(ifMatch), requestTimeout);
        return versioned(response);
    }

    /** Stores {@code workflow}, built in Java, under its name: {@link #putWorkflow(String, JsonNode, Long)} with its JSON. */
    public Versioned putWorkflow(Workflow workflow, Long ifMatch) {
        return putWorkflow(workflow.name(), workflow.toJson(mapper), ifMatch);
    }

    public Versioned getWorkflow(String name) {
        return versioned(exchange("GET", "/workflows/" + segment(name), null, Map.of(), requestTimeout));
    }

    public List<JsonNode> listWorkflows() {
        return items(exchange("GET", "/workflows", null, Map.of(), requestTimeout).body);
    }

    // ---- runs --------------------------------------------------------------------------------------------------

    /** Starts a run; with an idempotency key, the same key and input again return the same run, started once. */
    public Run startRun(String workflow, Object input, StartOptions options) {
        ObjectNode body = mapper.createObjectNode();
        body.set("input", input == null ? mapper.createObjectNode() : mapper.valueToTree(input));
        StartOptions opts = options == null ? StartOptions.none() : options;
        if (opts.idempotencyKey() != null) {
            body.put("idempotencyKey", opts.idempotencyKey());
        }
        if (opts.tier() != null) {
            body.put("tier", opts.tier());
        }
        if (opts.tags() != null) {
            opts.tags().forEach(body.putObject("tags")::put);
        }
        return new Run(exchange("POST", "/workflows/" + segment(workflow) + "/runs", body, Map.of(), requestTimeout).body);
    }

    public Run getRun(String runId) {
        return new Run(exchange("GET", "/runs/" + segment(runId), null, Map.of(), requestTimeout).body);
    }

    /**
     * One page of run summaries, newest first (no input or output: {@link #getRun} has them); pass
     * {@link Page#nextCursor()} back in the query for the next.
     */
    public Page<RunSummary> listRuns(RunQuery query) {
        StringJoiner params = new StringJoiner("&", "?", "").setEmptyValue("");
        RunQuery q = query == null ? RunQuery.all() : query;
        param(params, "workflow", q.workflow());
        param(params, "status", q.status());
        param(params, "limit", q.limit() == null ? null : q.limit().toString());
        param(params, "cursor", q.cursor());
        q.tags().forEach(tag -> param(params, "tag", tag));
        JsonNode page = exchange("GET", "/runs" + params, null, Map.of(), requestTimeout).body;
        List<RunSummary> runs = new ArrayList<>();
        for (JsonNode item : page.path("items")) {
            runs.add(new RunSummary(item));
        }
        return new Page<>(runs, page.hasNonNull("nextCursor") ? page.get("nextCursor").asText() : null);
    }

    /** The run's whole history in {@code seq} order, read page by page. */
    public List<Transition> history(String runId) {
        return history(runId, 0);
    }

    /** The run's transitions after seq {@code afterSeq} (0: all), in {@code seq} order, read page by page. */
    public List<Transition> history(String runId, long afterSeq) {
        List<Transition> transitions = new ArrayList<>();
        HistoryPage page = historyPage(runId, afterSeq, null);
        transitions.addAll(page.items());
        while (page.hasMore()) {
            page = historyPage(runId, page.nextAfter(), null);
            transitions.addAll(page.items());
        }
        return transitions;
    }

    /**
     * One page of the run's history: transitions after seq {@code afterSeq} (0: from the first), at most {@code limit}
     * (null: the server's default, 500; at most 1000); {@link HistoryPage#nextAfter()} continues it.
     */
    public HistoryPage historyPage(String runId, long afterSeq, Integer limit) {
        StringJoiner params = new StringJoiner("&", "?", "").setEmptyValue("");
        if (afterSeq > 0) {
            param(params, "after", Long.toString(afterSeq));
        }
        param(params, "limit", limit == null ? null : limit.toString());
        Response response = exchange("GET", "/runs/" + segment(runId) + "/history" + params, null, Map.of(), requestTimeout);
        List<Transition> transitions = new ArrayList<>();
        for (JsonNode item : response.body) {
            transitions.add(Transition.of(item));
        }
        Long next = null;
        if (response.next != null) {
            next = nextAfter(response.next);
            if (next == null && !transitions.isEmpty()) { // a next page without after=: go on from the last seq
                next = transitions.get(transitions.size() - 1).seq();
            }
        }
        return new HistoryPage(transitions, next);
    }

    /** The {@code after} query parameter of a next link's target, or null. */
    static Long nextAfter(String target) {
        java.util.regex.Matcher after = java.util.regex.Pattern.compile("[?&]after=([0-9]+)").matcher(target);
        return after.find() ? Long.valueOf(after.group(1)) : null;
    }

    /**
     * Sends a signal; the key makes a resend harmless (delivered once). The answer says {@code delivered:
     * accepted|duplicate}. A finished run is a {@link ConflictException}.
     */
    public JsonNode signal(String runId, String name, Object payload, String idempotencyKey) {
        ObjectNode body = mapper.createObjectNode();
        body.put("name", name);
        if (payload != null) {
            body.set("payload", mapper.valueToTree(payload));
        }
        body.put("idempotencyKey", Objects.requireNonNull(idempotencyKey, "idempotencyKey"));
        return exchange("POST", "/runs/" + segment(runId) + "/signals", body, Map.of(), requestTimeout).body;
    }

    /** Asks for the run to be cancelled (the next tick ends it CANCELLED); a finished run is a {@link ConflictException}. */
    public JsonNode cancel(String runId) {
        return exchange("POST", "/runs/" + segment(runId) + "/cancel", null, Map.of(), requestTimeout).body;
    }

    /** Retries a running node's current attempt (it supersedes a worker's lease), based on run version {@code ifMatch}. */
    public Run retryNode(String runId, String node, long ifMatch) {
        return nodeAction(runId, node, "retry", ifMatch);
    }

    /** Skips a node as if it had succeeded, based on run version {@code ifMatch}. */
    public Run skipNode(String runId, String node, long ifMatch) {
        return nodeAction(runId, node, "skip", ifMatch);
    }

    /** {@code PATCH /runs/{runId}} with any body ({@code {tier}}, {@code {nodes: {...}}}), based on {@code ifMatch}. */
    public Run patchRun(String runId, JsonNode patch, long ifMatch) {
        return new Run(exchange("PATCH", "/runs/" + segment(runId), patch, ifMatch(ifMatch), requestTimeout).body);
    }

    /**
     * {@code POST /runs/{runId}/reset}: reopens a FAILED or CANCELLED run (a SUCCEEDED one with
     * {@link ResetOptions#reopenSucceeded()}) from the chosen nodes, based on run version {@code ifMatch}; the answer
     * is the RUNNING run with its new {@link Run#version()}. A stale version, a run still running, or nodes its
     * revision does not have is a {@link ConflictException} carrying current and rejected; nothing is saved.
     */
    public Run resetRun(String runId, ResetOptions options, long ifMatch) {
        ObjectNode body = mapper.createObjectNode();
        if (!options.nodes().isEmpty()) {
            options.nodes().forEach(body.putArray("fromNodes")::add);
        }
        if (options.failed()) {
            body.put("failedOnly", true);
        }
        if (options.currentRevision()) {
            body.put("toRevision", "current");
        }
        if (options.reopen()) {
            body.put("reopenSucceeded", true);
        }
        return new Run(exchange("POST", "/runs/" + segment(runId) + "/reset", body, ifMatch(ifMatch), requestTimeout).body);
    }

    private Run nodeAction(String runId, String node, String action, long ifMatch) {
        ObjectNode body = mapper.createObjectNode();
        body.putObject("nodes").putObject(node).put("action", action);
        return patchRun(runId, body, ifMatch);
    }

    /**
     * Waits until the run is finished (SUCCEEDED, FAILED or CANCELLED) and returns it; after {@code timeout} returns
     * it as it is then (check {@link Run#isTerminal()}). Follows the server's run event stream when it has one, else
     * polls with backoff.
     */
    public Run awaitRun(String runId, Duration timeout) {
        return watchRun(runId, timeout, run -> { });
    }

    /**
     * As {@link #awaitRun}, calling {@code onChange} with the run as it is first and then with every new version seen
     * (a poll can miss versions between two looks; the stream does not).
     */
    public Run watchRun(String runId, Duration timeout, Consumer<Run> onChange) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Run run = getRun(runId);
        onChange.accept(run);
        if (run.isTerminal()) {
            return run;
        }
        if (!noEventStream) {
            Run streamed = stream(runId, deadline, run.version(), onChange);
            if (streamed != null) {
                if (streamed.isTerminal()) {
                    return streamed;
                }
                run = streamed;
            }
        }
        long delay = Duration.ofMillis(50).toNanos();
        while (System.nanoTime() < deadline) {
            sleep(Math.min(delay, Math.max(0, deadline - System.nanoTime())));
            Run now = getRun(runId);
            if (now.version() != run.version()) {
                onChange.accept(now);
                delay = Duration.ofMillis(50).toNanos(); // it moves: look again soon
            } else {
                delay = Math.min(delay * 2, maxPollInterval.toNanos());
            }
            run = now;
            if (run.isTerminal()) {
                return run;
            }
        }
        return run;
    }

    /**
     * Follows {@code GET /runs/{runId}/events} until a terminal state, the deadline or the end of the stream; returns
     * the last run seen on it, or null when the server has no such stream (404, 405, 406: remembered) or it broke.
     */
    private Run stream(String runId, long deadline, long seenVersion, Consumer<Run> onChange) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri("/runs/" + segment(runId) + "/events"))
                .timeout(Duration.ofNanos(Math.max(1, Math.min(deadline - System.nanoTime(), requestTimeout.toNanos()))))
                .header("Accept", "text/event-stream")
                .GET();
        authorize(request);
        HttpResponse<java.util.stream.Stream<String>> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofLines());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DuctorException("interrupted while waiting for run " + runId, e);
        }
        int status = response.statusCode();
        if (status == 404 || status == 405 || status == 406) {
            response.body().close();
            noEventStream = true;
            return null;
        }
        if (status != 200) {
            response.body().close();
            return null;
        }
        Run[] last = {null};
        long[] version = {seenVersion};
        java.util.stream.Stream<String> lines = response.body();
        CompletableFuture<Void> timer = CompletableFuture.runAsync(lines::close,
                CompletableFuture.delayedExecutor(Math.max(0, deadline - System.nanoTime()), java.util.concurrent.TimeUnit.NANOSECONDS));
        try (lines) {
            SseParser parser = new SseParser();
            java.util.Iterator<String> it = lines.iterator();
            while (it.hasNext()) {
                SseParser.Event event = parser.line(it.next());
                if (event == null || !"run".equals(event.name())) {
                    continue;
                }
                Run run = new Run(mapper.readTree(event.data()));
                last[0] = run;
                if (run.version() != version[0] || run.isTerminal()) {
                    version[0] = run.version();
                    onChange.accept(run);
                }
                if (run.isTerminal()) {
                    return run;
                }
            }
        } catch (IOException | UncheckedIOException | IllegalStateException e) {
            // the stream broke or was closed at the deadline: the caller polls for what remains
        } finally {
            timer.cancel(false);
        }
        return last[0];
    }

    // ---- pools, rules, events ----------------------------------------------------------------------------------

    public List<JsonNode> listPools() {
        return items(exchange("GET", "/pools", null, Map.of(), requestTimeout).body);
    }

    public Versioned getPool(String name) {
        return versioned(exchange("GET", "/pools/" + segment(name), null, Map.of(), requestTimeout));
    }

    /** Creates the pool ({@code ifMatch} null) or changes it; {@code paused} null keeps the current setting. */
    public Versioned putPool(String name, int capacity, Boolean paused, Long ifMatch) {
        ObjectNode body = mapper.createObjectNode().put("capacity", capacity);
        if (paused != null) {
            body.put("paused", paused);
        }
        return versioned(exchange("PUT", "/pools/" + segment(name), body, ifMatch(ifMatch), requestTimeout));
    }

    public List<JsonNode> listRules() {
        return items(exchange("GET", "/rules", null, Map.of(), requestTimeout).body);
    }

    public Versioned getRule(String name) {
        return versioned(exchange("GET", "/rules/" + segment(name), null, Map.of(), requestTimeout));
    }

    /** Creates the rule ({@code ifMatch} null) or replaces it: body {@code {on, match?, start? or signal?}}. */
    public Versioned putRule(String name, JsonNode rule, Long ifMatch) {
        return versioned(exchange("PUT", "/rules/" + segment(name), rule, ifMatch(ifMatch), requestTimeout));
    }

    // ---- schedules ------------------------------------------------------------------------------------------------

    /** The tenant's schedules by name, each with its next fire times. */
    public List<JsonNode> listSchedules() {
        return items(exchange("GET", "/schedules", null, Map.of(), requestTimeout).body);
    }

    public Versioned getSchedule(String name) {
        return versioned(exchange("GET", "/schedules/" + segment(name), null, Map.of(), requestTimeout));
    }

    /**
     * Creates the schedule ({@code ifMatch} null) or replaces it: body {@code {cron, timezone, workflow, input?, overlap?,
     * catchUp?, paused?}}, {@code cron} in Quartz form (seconds first).
     */
    public Versioned putSchedule(String name, JsonNode schedule, Long ifMatch) {
        return versioned(exchange("PUT", "/schedules/" + segment(name), schedule, ifMatch(ifMatch), requestTimeout));
    }

    /** Sends an event to the tenant's rules; answers with the runs started or signalled (a resent key: the first answer). */
    /**
     * {@code POST /bulk-actions}: {@code body} is {@code {action: cancel|reset|retry-dead-letters, filter: {workflow?,
     * status?, revision?, createdBefore?, createdAfter?}, dryRun?, toRevision?}}. A dry run answers {@code {matched,
     * sample}}; else the job's progress {@code {id, status, matched, done, skipped, failed, ...}}.
     */
    public JsonNode bulkAction(JsonNode body) {
        return exchange("POST", "/bulk-actions", body, Map.of(), requestTimeout).body;
    }

    /** A bulk action's progress: {@code {id, action, status, matched, done, skipped, failed, ...}}. */
    public JsonNode getBulkAction(String id) {
        return exchange("GET", "/bulk-actions/" + segment(id), null, Map.of(), requestTimeout).body;
    }

    /** Stops a running bulk action; a finished one is a {@link ConflictException}. */
    public JsonNode cancelBulkAction(String id) {
        return exchange("POST", "/bulk-actions/" + segment(id) + "/cancel", null, Map.of(), requestTimeout).body;
    }

    public JsonNode sendEvent(String type, String key, Object payload, String idempotencyKey) {
        ObjectNode body = mapper.createObjectNode().put("type", type);
        if (key != null) {
            body.put("key", key);
        }
        if (payload != null) {
            body.set("payload", mapper.valueToTree(payload));
        }
        body.put("idempotencyKey", Objects.requireNonNull(idempotencyKey, "idempotencyKey"));
        return exchange("POST", "/events", body, Map.of(), requestTimeout).body;
    }

    /** The external workers' task API: claim, heartbeat, complete, fail. */
    public TaskApi tasks() {
        return new TaskApi(this);
    }

    // ---- HTTP --------------------------------------------------------------------------------------------------

    /**
     * An answer: status, body (null when empty), the version from its ETag (null when none) and the target of its
     * {@code Link: <...>; rel="next"} (null when none).
     */
    record Response(int status, JsonNode body, Long etag, String next) {
    }

    Response exchange(String method, String path, JsonNode body, Map<String, String> headers, Duration timeout) {
        for (int attempt = 0; ; attempt++) {
            try {
                return exchangeOnce(method, path, body, headers, timeout);
            } catch (ServerUnavailableException e) {
                // Only reads are repeated here: a write may have been applied, its caller decides.
                if (!"GET".equals(method) || attempt >= unavailableRetries) {
                    throw e;
                }
                sleep((e.retryAfter() == null ? Duration.ofSeconds(1) : e.retryAfter()).toNanos());
            }
        }
    }

    private Response exchangeOnce(String method, String path, JsonNode body, Map<String, String> headers, Duration timeout) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(timeout).header("Accept", JSON);
        headers.forEach(request::header);
        if (body == null) {
            request.method(method, HttpRequest.BodyPublishers.noBody());
        } else {
            try {
                request.header("Content-Type", JSON).method(method, HttpRequest.BodyPublishers.ofByteArray(mapper.writeValueAsBytes(body)));
            } catch (JsonProcessingException e) {
                throw new IllegalArgumentException("the request body cannot be written as JSON", e);
            }
        }
        authorize(request);
        HttpResponse<byte[]> response;
        try {
            response = http.send(request.build(), HttpResponse.BodyHandlers.ofByteArray());
        } catch (IOException e) {
            throw new DuctorException(method + " " + uri(path) + " got no answer: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DuctorException(method + " " + uri(path) + " interrupted", e);
        }
        JsonNode json = parse(response.body());
        if (response.statusCode() >= 400) {
            throw error(response.statusCode(), json, response.headers(), method + " " + path);
        }
        return new Response(response.statusCode(), json, etag(response.headers()), nextLink(response.headers()));
    }

    private void authorize(HttpRequest.Builder request) {
        String bearer = token == null ? null : token.get();
        if (bearer != null && !bearer.isBlank()) {
            request.header("Authorization", "Bearer " + bearer.trim());
        }
    }

    private URI uri(String path) {
        return URI.create(base + "/api/v1" + path);
    }

    private JsonNode parse(byte[] body) {
        if (body == null || body.length == 0) {
            return null;
        }
        try {
            return mapper.readTree(body);
        } catch (IOException e) {
            return mapper.getNodeFactory().textNode(new String(body, StandardCharsets.UTF_8));
        }
    }

    static DuctorException error(int status, JsonNode problem, HttpHeaders headers, String what) {
        JsonNode doc = problem != null && problem.isObject() ? problem : null;
        String detail = doc != null && doc.hasNonNull("detail") ? doc.get("detail").asText()
                : what + " answered " + status + (problem == null ? "" : ": " + problem);
        return switch (status) {
            case 400, 422 -> new InvalidRequestException(status, detail, doc);
            case 401 -> new UnauthorizedException(detail, doc);
            case 403 -> new ForbiddenException(detail, doc);
            case 404 -> new NotFoundException(detail, doc);
            case 409 -> new ConflictException(detail, doc);
            case 428 -> new PreconditionRequiredException(detail, doc);
            case 503 -> new ServerUnavailableException(detail, doc, retryAfter(headers));
            default -> new DuctorException(status, detail, doc);
        };
    }

    /** Retry-After as seconds or as an HTTP date; null when absent or unreadable. */
    static Duration retryAfter(HttpHeaders headers) {
        String value = headers.firstValue("Retry-After").orElse(null);
        if (value == null) {
            return null;
        }
        try {
            return Duration.ofSeconds(Math.max(0, Long.parseLong(value.trim())));
        } catch (NumberFormatException notSeconds) {
            try {
                Duration until = Duration.between(ZonedDateTime.now(), ZonedDateTime.parse(value.trim(), DateTimeFormatter.RFC_1123_DATE_TIME));
                return until.isNegative() ? Duration.ZERO : until;
            } catch (RuntimeException notDate) {
                return null;
            }
        }
    }

    /** The target of the {@code rel="next"} link among the Link headers (RFC 8288), or null. */
    static String nextLink(HttpHeaders headers) {
        java.util.regex.Pattern next = java.util.regex.Pattern.compile("<([^>]*)>\\s*;[^,]*rel=\"?next\"?");
        for (String value : headers.allValues("Link")) {
            java.util.regex.Matcher m = next.matcher(value);
            if (m.find()) {
                return m.group(1);
            }
        }
        return null;
    }

    private static Long etag(HttpHeaders headers) {
        String value = headers.firstValue("ETag").orElse(null);
        if (value == null) {
            return null;
        }
        String v = value.trim();
        if (v.startsWith("W/")) {
            v = v.substring(2);
        }
        v = v.replace("\"", "");
        try {
            return Long.parseLong(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static Map<String, String> ifMatch(Long version) {
        return version == null ? Map.of() : Map.of("If-Match", "\"" + version + "\"");
    }

    private static Versioned versioned(Response response) {
        long version = response.etag != null ? response.etag : response.body.path("version").asLong();
        return new Versioned(response.body, version, response.status == 201);
    }

    private static List<JsonNode> items(JsonNode page) {
        List<JsonNode> items = new ArrayList<>();
        JsonNode array = page == null ? null : page.path("items");
        if (array instanceof ArrayNode) {
            array.forEach(items::add);
        }
        return items;
    }

    private static void param(StringJoiner params, String name, String value) {
        if (value != null && !value.isBlank()) {
            params.add(name + "=" + URLEncoder.encode(value, StandardCharsets.UTF_8));
        }
    }

    static String segment(String value) {
        return URLEncoder.encode(Objects.requireNonNull(value), StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static void sleep(long nanos) {
        try {
            java.util.concurrent.TimeUnit.NANOSECONDS.sleep(nanos);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new DuctorException("interrupted", e);
        }
    }

    /** Configuration; only the base URI is required (and a token, unless the server is open). */
    public static final class Builder {

        private URI baseUri = URI.create("http://localhost:8080");
        private Supplier<String> token;
        private ObjectMapper mapper;
        private Duration connectTimeout = Duration.ofSeconds(5);
        private Duration requestTimeout = Duration.ofSeconds(30);
        private int unavailableRetries = 2;
        private Duration maxPollInterval = Duration.ofSeconds(2);

        public Builder baseUri(String uri) {
            return baseUri(URI.create(uri));
        }

        public Builder baseUri(URI uri) {
            this.baseUri = Objects.requireNonNull(uri);
            return this;
        }

        /** Called before every request, so a token can rotate (read it from a vault, refresh it...). */
        public Builder tokenSupplier(Supplier<String> token) {
            this.token = token;
            return this;
        }

        public Builder token(String token) {
            return tokenSupplier(() -> token);
        }

        /**
         * Reads the token from {@code file}, a mounted secret that is rotated in place: again whenever its modification
         * time or size has changed, so a rotation is seen by the next request, and a busy worker does not open and read
         * the file for each of its requests.
         */
        public Builder tokenFile(Path file) {
            return tokenSupplier(new TokenFile(file));
        }

        /** The mapper for request and response bodies and for typed task input/output; default: one with java.time. */
        public Builder objectMapper(ObjectMapper mapper) {
            this.mapper = mapper;
            return this;
        }

        public Builder connectTimeout(Duration timeout) {
            this.connectTimeout = timeout;
            return this;
        }

        /** The longest wait for an answer to one request (a claim's long poll adds its own wait to it). */
        public Builder requestTimeout(Duration timeout) {
            this.requestTimeout = timeout;
            return this;
        }

        /** How often a read answered 503 is tried again after the server's Retry-After (default 2; 0: never). */
        public Builder unavailableRetries(int retries) {
            this.unavailableRetries = retries;
            return this;
        }

        /** The longest pause between two looks while {@link DuctorClient#awaitRun} polls (default 2 s). */
        public Builder maxPollInterval(Duration interval) {
            this.maxPollInterval = interval;
            return this;
        }

        public DuctorClient build() {
            if (mapper == null) {
                mapper = new ObjectMapper().registerModule(new JavaTimeModule());
            }
            return new DuctorClient(this);
        }
    }

    /** A token read from a file, read again when the file changes (its modification time or size). */
    private static final class TokenFile implements Supplier<String> {
        private final Path file;
        private volatile Cached cached;

        private record Cached(java.nio.file.attribute.FileTime modified, long size, String token) {
        }

        TokenFile(Path file) {
            this.file = file;
        }

        @Override
        public String get() {
            try {
                java.nio.file.attribute.BasicFileAttributes seen = Files.readAttributes(file,
                        java.nio.file.attribute.BasicFileAttributes.class);
                Cached now = cached;
                if (now == null || !now.modified().equals(seen.lastModifiedTime()) || now.size() != seen.size()) {
                    now = new Cached(seen.lastModifiedTime(), seen.size(), Files.readString(file).trim());
                    cached = now;
                }
                return now.token();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the token file " + file, e);
            }
        }
    }
}
