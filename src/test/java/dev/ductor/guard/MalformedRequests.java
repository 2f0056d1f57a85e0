package dev.ductor.guard;

import dev.ductor.support.Api;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.guard.ContractRoutes.Field;
import dev.ductor.guard.ContractRoutes.Rule;
import dev.ductor.guard.ContractRoutes.Type;
import dev.ductor.guard.OpenApiRoutes.Operation;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;

/**
 * Builds requests that are definitely invalid, for every operation of the OpenAPI document. Each starts from a valid
 * request (real ids, the right role's token, the current If-Match) and breaks at least one thing the route is known
 * to check: the JSON syntax, the body's type, a field's type or value, a required field, an unknown field in an
 * object that refuses them, a path id (malformed, unknown, or another tenant's), If-Match on versioned updates, the
 * content type, the method, a query parameter. Things a route may legitimately ignore (a garbage If-Match on a route
 * that takes none, a body on a GET) are only ever added as noise on top of a real break, so no request can turn out
 * valid by accident. What "known to check" means per route is {@link ContractRoutes}.
 */
final class MalformedRequests {

    enum Category { SYNTAX, TRAILING, ROOT, FIELD, MISSING, UNKNOWN_FIELD, PATH, IF_MATCH, CONTENT_TYPE, METHOD, QUERY, FOREIGN_LEASE }

    record Request(String route, Category category, String what, String method, String path, Map<String, String> headers,
                   byte[] body, boolean mutating) {

        String describe() {
            StringBuilder out = new StringBuilder(method).append(' ').append(abbreviate(path, 160));
            headers.forEach((k, v) -> {
                if (!k.equals("Authorization")) {
                    out.append(" [").append(k).append(": ").append(abbreviate(v, 60)).append(']');
                }
            });
            if (body != null) {
                out.append(" body(").append(body.length).append(" bytes)=").append(abbreviate(new String(body, StandardCharsets.UTF_8), 160));
            }
            return out.toString();
        }
    }

    static String abbreviate(String text, int max) {
        StringBuilder visible = new StringBuilder();
        for (char c : text.toCharArray()) {
            visible.append(c < 0x20 || c == 0x7f ? String.format("\\u%04x", (int) c) : String.valueOf(c));
        }
        String flat = visible.toString();
        return flat.length() <= max ? flat : flat.substring(0, max) + "...(" + flat.length() + " chars)";
    }

    private static final String HOLE = "\"@@guard-hole@@\"";
    private static final String DEEP_ARRAY = "[".repeat(200) + "]".repeat(200);
    private static final String HUGE_STRING = ContractRoutes.longString(300_000);
    private static final String NUL = "\"guard\\u0000nul\"";
    /**
     * Refused wherever they appear (config/JsonLimits): numbers of more than 1000 digits written out, a few bytes as sent
     * ({@code 1e999999999} once ended a pod), and nesting deeper than 500 levels.
     */
    private static final List<String> HOSTILE = List.of("1e999999999", "-1e999999999", "1e-999999999", "{\"n\":[1,2.5e-2147483647]}",
            "1e1001", "[" + "9".repeat(1001) + "]", "[".repeat(600) + "]".repeat(600), "{\"a\":".repeat(600) + "1" + "}".repeat(600));
    private static final List<String> WRONG_FOR_TEXT = List.of("42", "-1", "3.14", "true", "false", "[]", "[\"x\"]", "{}",
            "{\"a\":\"b\"}", "1e400", "123456789012345678901234567890", DEEP_ARRAY);
    private static final List<String> WRONG_FOR_INT = List.of("\"5\"", "\"five\"", "true", "[]", "[1]", "{}", "1.5", "-0.5",
            "1e400", "-1e400", "123456789012345678901234567890", DEEP_ARRAY, "1e999999999");
    private static final List<String> WRONG_FOR_BOOL = List.of("\"true\"", "\"yes\"", "1", "0", "[]", "{}", "[true]");
    private static final List<String> WRONG_FOR_OBJECT = List.of("\"x\"", "1", "true", "[]", "[{}]", "1e400", DEEP_ARRAY);
    private static final List<String> WRONG_FOR_ARRAY = List.of("\"x\"", "1", "true", "{}", "1e400");
    private static final List<String> WRONG_FOR_STRING_ARRAY = List.of("\"x\"", "1", "true", "{}", "[1]", "[null]", "[[]]", "[{}]", "[true]");

    private static final List<String> SYNTAX = List.of("{", "}", "{\"a\":", "{\"a\" 1}", "{,}", "[1,2", "{'a':1}", "{\"a\":NaN}",
            "{\"a\":Infinity}", "{\"a\":01}", "{\"a\":1,}", "{\"a\":\"\\x\"}", "{\"a\":\"unterminated}", "{\"a\":\"raw\u0001control\"}",
            "nul", "tru", "{\"a\":tru}", "/* comment */ {}", "{\"a\":-}", "{\"a\":.5}", "{\"a\":1.}", "{\"a\":+1}", "{\"\\ud800\":}",
            "[".repeat(1500), "{\"a\":".repeat(1200), "[".repeat(1100) + "]".repeat(1100), "<xml/>", "a=1&b=2", "\u0000");
    private static final List<byte[]> BAD_BYTES = List.of(new byte[] {(byte) 0xC3, (byte) 0x28}, new byte[] {(byte) 0xFF, (byte) 0xFE, 0},
            new byte[] {'{', '"', 'a', '"', ':', '"', (byte) 0xE2, (byte) 0x82, '"', '}'}, new byte[] {(byte) 0x80});
    private static final List<String> CONTENT_TYPES = List.of("text/plain", "application/xml", "application/x-www-form-urlencoded",
            "multipart/form-data; boundary=guard", "application/octet-stream", "text/html", "image/png", "application/jsonx", "json");
    private static final List<String> UUID_GARBAGE = List.of("not-a-uuid", "123", "zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz",
            "' OR '1'='1", "null", "-1", "x".repeat(2000), "\u00fc", "\u0000", "{runId}", "1-2-3-4-5-6", "%", "a b");
    private static final List<String> LONG_GARBAGE = List.of("abc", "1.5", "99999999999999999999", "0x10", "1e3", " 1", "NaN",
            "-", "\u0000", "x".repeat(2000), "%");
    private static final List<String> NAME_GARBAGE = List.of("has space", "a/b", "\u00fc", "x".repeat(101), "<script>", "a;b", "%",
            "a:b", "\u0000", "tab\there", "x".repeat(2000));
    private static final List<String> IF_MATCH_GARBAGE = List.of("abc", "\"abc\"", "*", "W/", "\"\"", "\"-1\"", "-1", "\"1.5\"",
            "1e3", "\"0x10\"", "\"1\", \"2\"", "9".repeat(400), "\"" + "9".repeat(5000) + "\"", "\"" + "x".repeat(8000) + "\"",
            "W/\"abc\"", "\"1\"junk", "null", "\"9223372036854775808\"", "\"\u00e9\"");
    private static final Map<String, List<String>> QUERY_GARBAGE = Map.of(
            "limit", List.of("abc", "0", "-1", "100000", "1.5", "99999999999999999999", "1e2", " 5"),
            "status", List.of("running", "DONE", " ", "RUNNING,FAILED", "\u0000", "x".repeat(1500)),
            "cursor", List.of("garbage", "!!!", "eDp5", "x".repeat(1500), " ", "MTox", "\u0000"));

    private final GuardWorld world;
    private final List<Operation> operations;
    private final Random random;
    private final Map<String, Set<String>> methodsByPath = new LinkedHashMap<>();
    private final Map<ContractRoutes.Versioned, String> etags = new LinkedHashMap<>();

    MalformedRequests(GuardWorld world, List<Operation> operations, Random random) {
        this.world = world;
        this.operations = operations;
        this.random = random;
        for (Operation op : operations) {
            methodsByPath.computeIfAbsent(op.template(), t -> new LinkedHashSet<>()).add(op.method());
        }
    }

    /** After a request was (wrongly) accepted, versions may have moved: read them again before the next one. */
    void forgetVersions() {
        etags.clear();
    }

    // ---- the base: a valid request ------------------------------------------------------------------------------

    private Optional<Rule> rule(Operation op) {
        return op.mutating() ? ContractRoutes.find(op) : Optional.empty();
    }

    private String role(Operation op) {
        return rule(op).map(r -> r.roles().iterator().next()).orElse(op.mutating() ? ContractRoutes.ADMIN : ContractRoutes.CLIENT);
    }

    private String etag(ContractRoutes.Versioned versioned) {
        return etags.computeIfAbsent(versioned, world::currentEtag);
    }

    private Map<String, String> baseHeaders(Operation op) {
        Map<String, String> headers = world.http.jsonHeaders(role(op), world.tenant);
        rule(op).ifPresent(r -> {
            String etag = r.versioned() == ContractRoutes.Versioned.NONE ? null : etag(r.versioned());
            if (etag != null) {
                headers.put("If-Match", etag);
            }
        });
        return headers;
    }

    private String baseBody(Operation op) {
        return rule(op).map(r -> r.validBody().apply(world)).orElse(op.hasBody() ? "{}" : null);
    }

    private Request request(Operation op, Category category, String what, Map<String, String> pathOverrides,
                            Map<String, String> headers, byte[] body) {
        return request(op, op.method(), category, what, world.path(op, pathOverrides), headers, body);
    }

    private Request request(Operation op, String method, Category category, String what, String path, Map<String, String> headers,
                            byte[] body) {
        return new Request(op.toString(), category, what, method, path, headers, body, !method.equals("GET"));
    }

    private static byte[] utf8(String text) {
        return text == null ? null : text.getBytes(StandardCharsets.UTF_8);
    }

    // ---- what can be broken, per operation ----------------------------------------------------------------------

    /** The categories that make this operation's request definitely invalid. */
    List<Category> breakable(Operation op) {
        List<Category> categories = new ArrayList<>();
        Optional<Rule> rule = rule(op);
        boolean body = rule.map(r -> r.body().use() != ContractRoutes.BodyUse.NONE).orElse(op.mutating() && op.hasBody());
        if (body) {
            categories.add(Category.SYNTAX);
            categories.add(Category.TRAILING);
            categories.add(Category.ROOT);
        }
        if (rule.isPresent() && body) {
            categories.add(Category.FIELD);
            categories.add(Category.CONTENT_TYPE);
            if (rule.get().body().fields().stream().anyMatch(Field::required)) {
                categories.add(Category.MISSING);
            }
            if (!rule.get().body().strictObjects().isEmpty()) {
                categories.add(Category.UNKNOWN_FIELD);
            }
        }
        if (rule.isPresent() && rule.get().versioned() != ContractRoutes.Versioned.NONE) {
            categories.add(Category.IF_MATCH);
        }
        if (!pathBreaks(op).isEmpty()) {
            categories.add(Category.PATH);
        }
        if (!undeclaredMethods(op).isEmpty()) {
            categories.add(Category.METHOD);
        }
        if (op.queryParams().stream().anyMatch(QUERY_GARBAGE::containsKey)) {
            categories.add(Category.QUERY);
        }
        return categories;
    }

    /** Path values that make this operation fail whatever the rest of the request says, per path parameter. */
    private Map<String, List<String>> pathBreaks(Operation op) {
        Map<String, List<String>> breaks = new LinkedHashMap<>();
        for (String param : op.pathParams()) {
            String collection = GuardWorld.collectionOf(op.template(), param);
            List<String> values = new ArrayList<>();
            boolean creates = op.method().equals("PUT") && op.template().endsWith("/{" + param + "}");
            switch (collection) {
                case "runs" -> {
                    values.addAll(UUID_GARBAGE);
                    values.add(UUID.randomUUID().toString());
                    values.add(world.foreignRunId);
                }
                case "bulk-actions" -> {
                    values.addAll(UUID_GARBAGE);
                    values.add(UUID.randomUUID().toString());
                    if (world.foreignBulkAction != null) {
                        values.add(world.foreignBulkAction);
                    }
                }
                case "tasks" -> {
                    values.addAll(LONG_GARBAGE);
                    values.add(Long.toString(8_000_000_000_000L + random.nextInt(1_000_000)));
                    values.add(world.foreignTaskId);
                }
                case "workflows", "pools", "rules", "schedules" -> {
                    values.addAll(NAME_GARBAGE);
                    if (!creates) {
                        values.add("guard-missing-" + GuardWorld.shortId());
                        String foreign = world.idFor(collection, true);
                        if (foreign != null) {
                            values.add(foreign);
                        }
                    }
                }
                default -> {
                    return Map.of(); // an unknown collection: nothing known to be refused
                }
            }
            breaks.put(param, values);
        }
        return breaks;
    }

    private List<String> undeclaredMethods(Operation op) {
        List<String> methods = new ArrayList<>();
        for (String method : List.of("GET", "PUT", "POST", "PATCH", "DELETE")) {
            if (!methodsByPath.get(op.template()).contains(method)) {
                methods.add(method);
            }
        }
        return methods;
    }

    // ---- every break, once --------------------------------------------------------------------------------------

    /**
     * Every break of every operation once. Built when sent, not before: a request wrongly accepted moves versions,
     * and the ones after it must still start from the current If-Match.
     */
    List<Supplier<Request>> systematic() {
        List<Supplier<Request>> requests = new ArrayList<>();
        Set<String> methodsDone = new LinkedHashSet<>();
        for (Operation op : operations) {
            for (Category category : breakable(op)) {
                if (category == Category.METHOD && !methodsDone.add(op.template())) {
                    continue;
                }
                requests.addAll(variants(op, category));
            }
            if (op.mutating() && op.template().matches("/api/v1/tasks/\\{[^}]+}/(heartbeat|complete|fail)")) {
                requests.add(() -> foreignLease(op));
            }
        }
        return requests;
    }

    /** One random break of a random operation, sometimes with noise on top. */
    Request random() {
        Operation op = operations.get(random.nextInt(operations.size()));
        List<Category> categories = breakable(op);
        if (categories.isEmpty()) {
            throw new AssertionError(op + " cannot be broken for sure: teach ContractRoutes about it");
        }
        Category category = categories.get(random.nextInt(categories.size()));
        List<Supplier<Request>> variants = variants(op, category);
        Request request = variants.get(random.nextInt(variants.size())).get();
        return random.nextInt(10) < 4 ? noise(request) : request;
    }

    private List<Supplier<Request>> variants(Operation op, Category category) {
        List<Supplier<Request>> variants = new ArrayList<>();
        String base = baseBody(op);
        switch (category) {
            case SYNTAX -> {
                for (String text : SYNTAX) {
                    variants.add(() -> request(op, category, "invalid JSON " + abbreviate(text, 30), Map.of(), baseHeaders(op), utf8(text)));
                }
                for (byte[] bytes : BAD_BYTES) {
                    variants.add(() -> request(op, category, "invalid UTF-8", Map.of(), baseHeaders(op), bytes));
                }
                String source = base == null ? "{\"a\":[1,2,{\"b\":\"c\"}]}" : base;
                for (int i = 0; i < 5; i++) {
                    variants.add(() -> {
                        int cut = 1 + random.nextInt(source.length() - 1);
                        return request(op, category, "the valid body cut at " + cut, Map.of(), baseHeaders(op), utf8(source.substring(0, cut)));
                    });
                }
            }
            case TRAILING -> {
                String source = base == null ? "{}" : base;
                for (String tail : List.of(" x", "}", ",", " // comment", source, " {\"tier\":\"bulk\"}", "\u0000")) {
                    variants.add(() -> request(op, category, "the valid body followed by " + abbreviate(tail, 20),
                            Map.of(), baseHeaders(op), utf8(source + tail)));
                }
            }
            case ROOT -> {
                List<String> roots = new ArrayList<>(List.of("[]", "\"x\"", "1", "-1.5", "true", "false", "[{}]", DEEP_ARRAY, "1e400",
                        "1e999999999", "{\"a\":".repeat(600) + "1" + "}".repeat(600),
                        "[" + (base == null ? "{}" : base) + "]"));
                boolean required = rule(op).map(r -> r.body().use() == ContractRoutes.BodyUse.REQUIRED).orElse(false);
                if (required) {
                    roots.add("null");
                    roots.add("");
                }
                for (String root : roots) {
                    variants.add(() -> request(op, category, "body " + (root.isEmpty() ? "empty" : abbreviate(root, 20)),
                            Map.of(), baseHeaders(op), utf8(root)));
                }
            }
            case FIELD -> {
                for (Field field : rule(op).orElseThrow().body().fields()) {
                    for (String value : wrongValues(field)) {
                        variants.add(() -> request(op, category, field.path() + " = " + abbreviate(value, 30), Map.of(),
                                baseHeaders(op), utf8(withField(base, field.path(), value))));
                    }
                }
            }
            case MISSING -> {
                for (Field field : rule(op).orElseThrow().body().fields()) {
                    if (field.required()) {
                        variants.add(() -> request(op, category, "without " + field.path(), Map.of(), baseHeaders(op),
                                utf8(withoutField(base, field.path()))));
                    }
                }
            }
            case UNKNOWN_FIELD -> {
                for (String object : rule(op).orElseThrow().body().strictObjects()) {
                    for (String name : List.of("unexpected", "Nodes", "__proto__", "")) {
                        String path = object.isEmpty() ? name : object + "." + name;
                        variants.add(() -> request(op, category, "unknown field '" + path + "'", Map.of(), baseHeaders(op),
                                utf8(withField(base, path, "1"))));
                    }
                }
            }
            case PATH -> pathBreaks(op).forEach((param, values) -> {
                for (String value : values) {
                    variants.add(() -> request(op, category, "{" + param + "} = " + abbreviate(value, 40), Map.of(param, value),
                            baseHeaders(op), utf8(base)));
                }
            });
            case IF_MATCH -> {
                ContractRoutes.Versioned versioned = rule(op).orElseThrow().versioned();
                List<String> values = new ArrayList<>(IF_MATCH_GARBAGE);
                variants.add(() -> {
                    Map<String, String> headers = baseHeaders(op);
                    headers.remove("If-Match");
                    return request(op, category, "no If-Match", Map.of(), headers, utf8(base));
                });
                for (String value : values) {
                    variants.add(() -> withIfMatch(op, value, base));
                }
                for (long delta : new long[] {-1, 1, 1000}) {
                    variants.add(() -> {
                        long current = Long.parseLong(etag(versioned).replace("\"", ""));
                        return withIfMatch(op, "\"" + (current + delta) + "\"", base);
                    });
                }
            }
            case CONTENT_TYPE -> {
                for (String type : CONTENT_TYPES) {
                    variants.add(() -> {
                        Map<String, String> headers = baseHeaders(op);
                        headers.put("Content-Type", type);
                        return request(op, category, "Content-Type " + type, Map.of(), headers, utf8(base));
                    });
                }
            }
            case METHOD -> {
                for (String method : undeclaredMethods(op)) {
                    variants.add(() -> request(op, method, category, method + " is not served on " + op.template(),
                            world.path(op, Map.of()), baseHeaders(op), method.equals("GET") ? null : utf8(base == null ? "{}" : base)));
                }
            }
            case QUERY -> {
                for (String param : op.queryParams()) {
                    for (String value : QUERY_GARBAGE.getOrDefault(param, List.of())) {
                        variants.add(() -> request(op, op.method(), category, param + "=" + abbreviate(value, 30),
                                world.path(op, Map.of()) + "?" + param + "=" + Api.segment(value), baseHeaders(op), null));
                    }
                }
            }
            default -> throw new IllegalArgumentException(category.toString());
        }
        return variants;
    }

    private Request withIfMatch(Operation op, String value, String base) {
        Map<String, String> headers = baseHeaders(op);
        headers.put("If-Match", value);
        return request(op, Category.IF_MATCH, "If-Match " + abbreviate(value, 30), Map.of(), headers, utf8(base));
    }

    /** Another tenant's task, with that task's own lease token: the contract answers 404 for another tenant's work. */
    private Request foreignLease(Operation op) {
        String body = op.template().endsWith("/fail")
                ? "{\"leaseToken\":\"" + world.foreignLease + "\",\"error\":\"boom\",\"retryable\":true}"
                : op.template().endsWith("/complete")
                ? "{\"leaseToken\":\"" + world.foreignLease + "\",\"output\":{\"ok\":true}}"
                : "{\"leaseToken\":\"" + world.foreignLease + "\"}";
        return request(op, Category.FOREIGN_LEASE, "another tenant's task with its lease token",
                Map.of(op.pathParams().get(0), world.foreignTaskId), baseHeaders(op), utf8(body));
    }

    /** Values that are wrong for a field: other JSON types, values its route refuses, NUL, and too much. */
    static List<String> wrongValues(Field field) {
        List<String> values = new ArrayList<>();
        switch (field.type()) {
            case STRING, ENUM, DURATION, UUID -> values.addAll(WRONG_FOR_TEXT);
            case INT -> values.addAll(WRONG_FOR_INT);
            case BOOL -> values.addAll(WRONG_FOR_BOOL);
            case OBJECT -> values.addAll(WRONG_FOR_OBJECT);
            case ARRAY -> values.addAll(WRONG_FOR_ARRAY);
            case STRING_ARRAY -> values.addAll(WRONG_FOR_STRING_ARRAY);
            case PAYLOAD -> {
                values.add(HUGE_STRING);
                values.add("{\"blob\":" + HUGE_STRING + "}");
                values.add("[" + HUGE_STRING + "," + HUGE_STRING + "," + HUGE_STRING + "]");
                values.addAll(HOSTILE);
                values.add("[".repeat(101) + "]".repeat(101)); // a payload may nest 100 levels (JsonLimits.MAX_PAYLOAD_DEPTH)
            }
            case ANY -> values.addAll(HOSTILE);
            default -> throw new IllegalArgumentException(field.type().toString());
        }
        if (!field.nullable()) {
            values.add("null");
        }
        // PostgreSQL stores no U+0000 in text or jsonb: a request carrying one cannot be stored, so it is invalid.
        switch (field.type()) {
            case STRING, ENUM, DURATION, UUID -> values.add(NUL);
            case ANY, PAYLOAD -> values.add("{\"k\":" + NUL + "}");
            default -> { }
        }
        values.addAll(field.invalid());
        return values;
    }

    /** Noise on top of a request that is already invalid: never makes it valid, only more broken. */
    private Request noise(Request request) {
        Map<String, String> headers = new LinkedHashMap<>(request.headers());
        String path = request.path();
        byte[] body = request.body();
        StringBuilder what = new StringBuilder(request.what());
        int count = 1 + random.nextInt(2);
        for (int i = 0; i < count; i++) {
            switch (random.nextInt(6)) {
                case 0 -> {
                    String value = IF_MATCH_GARBAGE.get(random.nextInt(IF_MATCH_GARBAGE.size()));
                    headers.put("If-Match", value);
                    what.append(" + If-Match ").append(abbreviate(value, 20));
                }
                case 1 -> {
                    String type = CONTENT_TYPES.get(random.nextInt(CONTENT_TYPES.size()));
                    headers.put("Content-Type", type);
                    what.append(" + Content-Type ").append(type);
                }
                case 2 -> {
                    path = path + (path.contains("?") ? "&" : "?") + "guard=" + random.nextInt(1000);
                    what.append(" + an unknown query parameter");
                }
                case 3 -> {
                    headers.put("X-Guard-Noise", "x".repeat(1 + random.nextInt(2000)));
                    what.append(" + a long unknown header");
                }
                case 4 -> {
                    if (request.category() != Category.CONTENT_TYPE) { // without one the body is read as JSON
                        headers.remove("Content-Type");
                        what.append(" + no Content-Type");
                    }
                }
                default -> {
                    if (body == null) {
                        body = utf8("{\"noise\":" + random.nextInt() + "}");
                        what.append(" + a body nobody reads");
                    } else {
                        headers.put("Accept", random.nextBoolean() ? "application/json" : "*/*");
                        what.append(" + Accept");
                    }
                }
            }
        }
        return new Request(request.route(), request.category(), what.toString(), request.method(), path, headers, body,
                request.mutating());
    }

    // ---- JSON surgery (textual, so raw values like 1e400 reach the server exactly as written) -------------------

    static String withField(String base, String path, String rawValue) {
        ObjectNode root = (ObjectNode) Api.parse(base == null ? "{}" : base);
        JsonNode parent = parentOf(root, path, true);
        String last = lastSegment(path);
        if (parent instanceof ObjectNode object) {
            object.putRawValue(last, new com.fasterxml.jackson.databind.util.RawValue("@@guard-hole@@"));
        } else if (parent instanceof ArrayNode array) {
            array.set(Integer.parseInt(last), com.fasterxml.jackson.databind.node.TextNode.valueOf("@@guard-hole@@"));
        }
        String text = root.toString();
        return text.replace(HOLE, rawValue).replace("@@guard-hole@@", rawValue);
    }

    static String withoutField(String base, String path) {
        ObjectNode root = (ObjectNode) Api.parse(base);
        JsonNode parent = parentOf(root, path, false);
        if (parent instanceof ObjectNode object) {
            object.remove(lastSegment(path));
        }
        return root.toString();
    }

    /** Segments of {@code nodes[1].retry.backoff}: nodes, 1, retry, backoff. */
    private static List<String> segments(String path) {
        List<String> segments = new ArrayList<>();
        for (String part : path.split("\\.", -1)) {
            int bracket = part.indexOf('[');
            if (bracket < 0) {
                segments.add(part);
            } else {
                segments.add(part.substring(0, bracket));
                for (String index : part.substring(bracket + 1, part.length() - 1).split("]\\[")) {
                    segments.add(index);
                }
            }
        }
        return segments;
    }

    private static String lastSegment(String path) {
        List<String> segments = segments(path);
        return segments.get(segments.size() - 1);
    }

    private static JsonNode parentOf(ObjectNode root, String path, boolean create) {
        List<String> segments = segments(path);
        JsonNode node = root;
        for (int i = 0; i < segments.size() - 1; i++) {
            String segment = segments.get(i);
            JsonNode next = node.isArray() ? node.get(Integer.parseInt(segment)) : node.get(segment);
            if (next == null || !next.isContainerNode()) {
                if (!create || !node.isObject()) {
                    return null;
                }
                next = ((ObjectNode) node).putObject(segment);
            }
            node = next;
        }
        return node;
    }
}
