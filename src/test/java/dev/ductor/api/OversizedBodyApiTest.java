package dev.ductor.api;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import dev.ductor.support.Fixtures;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import io.restassured.RestAssured;

import java.io.ByteArrayInputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A body over the API's limit (1 MiB) is refused with a problem document like every other error, however large: bodies
 * over the HTTP layer's own limit used to get a bare 413 with an empty body.
 */
@QuarkusTest
@Tag("api")
class OversizedBodyApiTest {

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    private static byte[] eventOf(int bytes) {
        byte[] body = new byte[bytes];
        Arrays.fill(body, (byte) 'x');
        byte[] head = "{\"type\":\"x\",\"idempotencyKey\":\"k\",\"payload\":\"".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(head, 0, body, 0, head.length);
        body[bytes - 2] = '"';
        body[bytes - 1] = '}';
        return body;
    }

    /** Without a Content-Length: the body's size is known only as it arrives. */
    private static HttpResponse<String> chunked(Api api, byte[] body) throws Exception {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/api/v1/events"))
                .POST(HttpRequest.BodyPublishers.ofInputStream(() -> new ByteArrayInputStream(body)));
        api.jsonHeaders("client", api.tenant).forEach(request::header);
        return HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build()
                .send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void bodiesOverTheLimitAre413ProblemsWhateverTheirSize() throws Exception {
        Api api = new Api(issuer);
        for (int bytes : new int[] {2 * 1024 * 1024, 5 * 1000 * 1000, 20 * 1000 * 1000}) {
            Api.Reply reply = api.send("POST", "/api/v1/events", api.jsonHeaders("client", api.tenant), eventOf(bytes));
            assertEquals(413, reply.status(), () -> bytes + " bytes: " + reply.excerpt());
            assertTrue(reply.isProblem(), () -> bytes + " bytes: " + reply.excerpt());
            JsonNode problem = reply.json();
            assertEquals(413, problem.path("status").asInt(), reply.body());
            assertEquals(1024 * 1024, problem.path("maxBytes").asLong(), reply.body());
        }
        // Sent in chunks, the body's size is known only as it arrives: stopped at the same 1 MiB, with the same problem
        // document (it used to be a bare 413 from the HTTP layer).
        for (int bytes : new int[] {1024 * 1024 + 1, 3 * 1024 * 1024, 20 * 1000 * 1000}) {
            HttpResponse<String> chunked = chunked(api, eventOf(bytes));
            assertEquals(413, chunked.statusCode(), () -> bytes + " bytes in chunks: " + chunked.body());
            assertTrue(chunked.headers().firstValue("Content-Type").orElse("").startsWith("application/problem+json"),
                    () -> bytes + " bytes in chunks: " + chunked.headers() + " " + chunked.body());
            JsonNode problem = Api.parse(chunked.body());
            assertEquals("https://ductor.dev/problems/payload-too-large", problem.path("type").asText(), chunked.body());
            assertEquals(1024 * 1024, problem.path("maxBytes").asLong(), chunked.body());
        }
        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_event WHERE tenant = ?1", api.tenant));
        // Exactly the limit, in chunks, is read through: its payload then meets its own bound (256 KiB), a 400.
        HttpResponse<String> atTheLimit = chunked(api, eventOf(1024 * 1024));
        assertEquals(400, atTheLimit.statusCode(), atTheLimit::body);
        // A small body in chunks is read and applied.
        HttpResponse<String> small = chunked(api, "{\"type\":\"x\",\"idempotencyKey\":\"k0\",\"payload\":{}}".getBytes(StandardCharsets.UTF_8));
        assertEquals(202, small.statusCode(), small::body);

        Api.Reply after = api.send("POST", "/api/v1/events", api.jsonHeaders("client", api.tenant),
                "{\"type\":\"x\",\"idempotencyKey\":\"k\",\"payload\":{}}");
        assertEquals(202, after.status(), after::excerpt);
    }
}
