package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.worker.StepFailure;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepHandler;
import jakarta.enterprise.context.ApplicationScoped;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Calls an HTTP endpoint: input {@code {url, method?, body?, timeoutMs?}}, output {@code {status, body}}.
 * A 5xx or an I/O error is retryable; a 4xx is not, since sending the same request again will not help.
 *
 * <p>A step may be attempted more than once (a retry after a timeout whose request did arrive, an operator's retry
 * of a hung call), so every request carries {@code Idempotency-Key}, the same for every attempt of this node of this
 * run (a structured-field string, as the IETF Idempotency-Key draft has it), and {@code Ductor-Attempt}, the
 * attempt's number: a service that deduplicates on the key performs the effect once.
 */
@ApplicationScoped
public class HttpHandler implements StepHandler {

    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();

    @Override
    public String name() {
        return "http";
    }

    @Override
    public boolean hasExternalEffects() {
        return true;
    }

    @Override
    public JsonNode run(StepContext step, JsonNode input) throws Exception {
        if (input == null || !input.hasNonNull("url")) {
            throw new StepFailure("http needs input {\"url\": ...}", false);
        }
        URI uri;
        try {
            uri = URI.create(input.get("url").asText());
        } catch (IllegalArgumentException e) {
            throw new StepFailure("http: bad url: " + e.getMessage(), false);
        }
        String method = input.hasNonNull("method") ? input.get("method").asText().toUpperCase() : "GET";
        String body = input.hasNonNull("body") ? input.get("body").toString() : null;
        long timeoutMs = input.hasNonNull("timeoutMs") ? input.get("timeoutMs").asLong(30_000) : 30_000;
        HttpRequest request = HttpRequest.newBuilder(uri)
                .timeout(Duration.ofMillis(timeoutMs))
                .header("Content-Type", "application/json")
                .header("Idempotency-Key", "\"" + step.idempotencyKey() + "\"")
                .header("Ductor-Attempt", Integer.toString(step.attempt()))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body))
                .build();
        HttpResponse<String> response = client.send(request, HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() >= 500) {
            throw new StepFailure("http " + method + " " + uri + " answered " + response.statusCode(), true);
        }
        if (response.statusCode() >= 400) {
            throw new StepFailure("http " + method + " " + uri + " answered " + response.statusCode(), false);
        }
        ObjectNode output = JsonNodeFactory.instance.objectNode();
        output.put("status", response.statusCode());
        output.put("body", response.body());
        return output;
    }
}
