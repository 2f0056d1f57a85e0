package dev.ductor.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain JDK HTTP calls against a pod's {@code /api/v1}, with a bearer token and JSON bodies. */
final class ItHttp {

    static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private ItHttp() {
    }

    static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return HTTP.send(request.timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    static HttpResponse<String> get(PodProcess pod, String path, String token) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(pod.url(path))).header("Authorization", "Bearer " + token).GET());
    }

    static HttpResponse<String> post(PodProcess pod, String path, String token, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(pod.url(path)))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)));
    }

    static HttpResponse<String> put(PodProcess pod, String path, String token, String body) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(pod.url(path)))
                .header("Authorization", "Bearer " + token)
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(body)));
    }

    /** The body as JSON, after checking the status; the message names the call and shows what came back. */
    static JsonNode expect(int status, HttpResponse<String> response, String what) {
        if (response.statusCode() != status) {
            throw new AssertionError(what + ": expected HTTP " + status + ", got " + response.statusCode() + " "
                    + response.headers().firstValue("Content-Type").orElse("") + " " + response.body());
        }
        return tree(response.body());
    }

    static JsonNode tree(String json) {
        try {
            return json == null || json.isBlank() ? JSON.nullNode() : JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException("not JSON: " + json, e);
        }
    }

    static String write(Object value) {
        try {
            return JSON.writeValueAsString(value);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
