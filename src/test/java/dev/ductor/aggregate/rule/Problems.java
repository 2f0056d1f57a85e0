package dev.ductor.aggregate.rule;

import io.restassured.path.json.JsonPath;
import io.restassured.response.Response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The assertions every error response shares: an RFC 9457 problem document with the given status. */
final class Problems {

    private Problems() {
    }

    static JsonPath problem(Response response, int status) {
        assertEquals(status, response.statusCode(), () -> "expected " + status + ": " + response.asString());
        String contentType = response.contentType();
        assertNotNull(contentType, "a problem needs a content type");
        assertTrue(contentType.startsWith("application/problem+json"), () -> contentType + " " + response.asString());
        JsonPath body = JsonPath.from(response.asString());
        assertEquals(status, body.getInt("status"));
        assertNotNull(body.getString("title"));
        assertNotNull(body.getString("type"));
        return body;
    }
}
