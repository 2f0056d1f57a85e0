package dev.ductor.guard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.ductor.security.DevTokenIssuer;
import io.restassured.RestAssured;

import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A plain JDK HTTP/1.1 client for the guard tests: raw bytes in, status, content type and body out, with no
 * client-side "help" (rest-assured would fix up content types and encode bodies). Tokens are minted per role and
 * tenant and cached.
 */
final class GuardHttp {

    static final String PROBLEM_JSON = "application/problem+json";
    static final ObjectMapper MAPPER = new ObjectMapper();

    private final HttpClient client = HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(10))
            .build();
    private final String base = RestAssured.baseURI + ":" + RestAssured.port;
    private final DevTokenIssuer issuer;
    private final Map<String, String> tokens = new HashMap<>();

    GuardHttp(DevTokenIssuer issuer) {
        this.issuer = issuer;
    }

    String token(String role, String tenant) {
        return tokens.computeIfAbsent(role + "@" + tenant, k -> issuer.mint(role, tenant));
    }

    /** Headers for a JSON request as {@code role} of {@code tenant} (role null: no Authorization header). */
    Map<String, String> json(String role, String tenant) {
        Map<String, String> headers = new LinkedHashMap<>();
        if (role != null) {
            headers.put("Authorization", "Bearer " + token(role, tenant));
        }
        headers.put("Content-Type", "application/json");
        return headers;
    }

    Reply send(String method, String path, Map<String, String> headers, byte[] body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
                .timeout(Duration.ofSeconds(60))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofByteArray(body));
        headers.forEach(request::header);
        try {
            HttpResponse<String> response = client.send(request.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Reply(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.headers().firstValue("ETag").orElse(null), response.body());
        } catch (Exception e) {
            throw new IllegalStateException(method + " " + path + " could not be sent: " + e, e);
        }
    }

    Reply send(String method, String path, Map<String, String> headers, String body) {
        return send(method, path, headers, body == null ? null : body.getBytes(StandardCharsets.UTF_8));
    }

    Reply get(String path, String role, String tenant) {
        return send("GET", path, json(role, tenant), (byte[]) null);
    }

    /** One path segment, percent-encoded (a space is %20, a slash %2F). */
    static String segment(String raw) {
        return URLEncoder.encode(raw, StandardCharsets.UTF_8).replace("+", "%20");
    }

    static JsonNode parse(String text) {
        try {
            return MAPPER.readTree(text);
        } catch (Exception e) {
            return null;
        }
    }

    record Reply(int status, String contentType, String etag, String body) {

        boolean isProblem() {
            return contentType != null && contentType.toLowerCase().startsWith(PROBLEM_JSON);
        }

        JsonNode json() {
            return parse(body);
        }

        String excerpt() {
            String text = body == null ? "" : body.replaceAll("\\s+", " ");
            return status + " " + (contentType.isEmpty() ? "(no content type)" : contentType) + " "
                    + (text.length() > 400 ? text.substring(0, 400) + "..." : text);
        }
    }
}
