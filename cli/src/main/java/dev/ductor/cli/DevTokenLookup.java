package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Where the CLI finds a dev token when it talks to a server on this machine and was given none: the nearest
 * {@code .ductor/dev-tokens/<role>.jwt}, from the working directory up through its parents (a server started by
 * {@code ./mvnw quarkus:dev} writes them at the checkout's root, and the CLI is often run from below it); failing
 * that, the server's own {@code GET /api/v1/dev-tokens}, which hands them to callers on its machine when dev tokens
 * are on (a server started elsewhere, e.g. from a jar in another directory). Each step says why it found nothing, so
 * the final usage error can tell the user what was tried.
 */
final class DevTokenLookup {

    static final String ENDPOINT = "/api/v1/dev-tokens";

    /** Short: the server is on this machine, and a person is waiting for the command. */
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static final ObjectMapper JSON = new ObjectMapper();

    private final List<String> tried = new ArrayList<>();

    /** The nearest {@code .ductor/dev-tokens/<role>.jwt} that can be read, from {@code dir} upward. */
    Optional<Path> nearestFile(Path dir, String role) {
        Path start = dir.toAbsolutePath().normalize();
        for (Path at = start; at != null; at = at.getParent()) {
            Path file = at.resolve(".ductor").resolve("dev-tokens").resolve(role + ".jwt");
            if (Files.isReadable(file)) {
                return Optional.of(file);
            }
        }
        tried.add("no .ductor/dev-tokens/" + role + ".jwt in " + start + " or its parents");
        return Optional.empty();
    }

    /** The token {@code server}'s dev-token route hands out for {@code role}; empty when it hands out none (404) or cannot be asked. */
    Optional<String> fromServer(String server, String role) {
        String url = server.replaceAll("/+$", "") + ENDPOINT;
        HttpResponse<String> answer;
        try {
            HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
            answer = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).header("Accept", "application/json").GET().build(),
                    HttpResponse.BodyHandlers.ofString());
        } catch (IOException | IllegalArgumentException e) {
            tried.add(url + " could not be asked (" + e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage()) + ")");
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            tried.add(url + " was not asked (interrupted)");
            return Optional.empty();
        }
        if (answer.statusCode() != 200) {
            // 404: dev tokens are off on that server (a production profile), or it does not count us as local.
            tried.add(url + " handed out none (HTTP " + answer.statusCode() + ")");
            return Optional.empty();
        }
        JsonNode tokens;
        try {
            tokens = JSON.readTree(answer.body()).path("tokens");
        } catch (IOException e) {
            tried.add(url + " answered something other than dev tokens");
            return Optional.empty();
        }
        JsonNode token = tokens.path(role);
        if (!token.isTextual() || token.asText().isBlank()) {
            List<String> roles = new ArrayList<>();
            tokens.fieldNames().forEachRemaining(roles::add);
            tried.add(url + " has no dev token for role " + role + " (only for " + String.join(", ", roles) + ")");
            return Optional.empty();
        }
        return Optional.of(token.asText());
    }

    /** What was tried and why it found nothing, for the message that no token was found. */
    String tried() {
        return String.join("; ", tried);
    }
}
