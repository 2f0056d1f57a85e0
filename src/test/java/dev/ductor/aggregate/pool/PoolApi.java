package dev.ductor.aggregate.pool;

import dev.ductor.security.DevTokenIssuer;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A tenant of its own with a token per role, and the pool calls of the API tests. */
final class PoolApi {

    static final String PROBLEM_JSON = "application/problem+json";

    private final DevTokenIssuer issuer;
    final String tenant;
    private final java.util.Map<String, String> tokens = new java.util.concurrent.ConcurrentHashMap<>();

    PoolApi(DevTokenIssuer issuer) {
        this.issuer = issuer;
        this.tenant = unique("t");
    }

    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    String token(String role) {
        return tokens.computeIfAbsent(role, r -> issuer.mint(r, tenant));
    }

    RequestSpecification as(String role) {
        return given().header("Authorization", "Bearer " + token(role)).contentType(ContentType.JSON);
    }

    Response put(String name, String body) {
        return as("admin").body(body).put("/api/v1/pools/{name}", name);
    }

    Response put(String name, String body, String ifMatch) {
        return as("admin").header("If-Match", ifMatch).body(body).put("/api/v1/pools/{name}", name);
    }

    Response get(String name) {
        return as("admin").get("/api/v1/pools/{name}", name);
    }

    Response events(String name) {
        return as("admin").get("/api/v1/pools/{name}/events", name);
    }

    /** Creates the pool and checks the 201. */
    void create(String name, int capacity, boolean paused) {
        Response created = put(name, "{\"capacity\": " + capacity + ", \"paused\": " + paused + "}");
        assertEquals(201, created.statusCode(), created::asString);
    }

    /** Changes the pool from the version its GET shows and checks the 200. */
    void update(String name, String body) {
        String etag = get(name).then().statusCode(200).extract().header("ETag");
        Response updated = put(name, body, etag);
        assertEquals(200, updated.statusCode(), updated::asString);
    }

    /** A PUT with the JDK client (rest-assured's configuration is static, not for threads). */
    HttpResponse<String> putConcurrently(HttpClient client, String name, String body, String ifMatch) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port
                        + "/api/v1/pools/" + name))
                .timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token("admin"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body));
        if (ifMatch != null) {
            request.header("If-Match", ifMatch);
        }
        return client.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    /** Asserts an RFC 9457 problem with this status and returns its body. */
    static JsonPath problem(Response response, int status) {
        assertEquals(status, response.statusCode(), () -> "expected " + status + ": " + response.asString());
        String contentType = response.contentType();
        assertNotNull(contentType);
        assertTrue(contentType.startsWith(PROBLEM_JSON), () -> contentType + " " + response.asString());
        JsonPath body = JsonPath.from(response.asString());
        assertEquals(status, body.getInt("status"));
        assertNotNull(body.getString("title"));
        assertNotNull(body.getString("type"));
        return body;
    }
}
