package dev.ductor.worker.handlers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.worker.StepContext;
import dev.ductor.worker.StepFailure;
import dev.ductor.worker.StepHandler;
import dev.ductor.worker.egress.BoundedExchange;
import dev.ductor.worker.egress.EgressPolicy;
import dev.ductor.worker.egress.HttpSettings;
import dev.ductor.worker.egress.PodHttpSettings;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClientOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Calls an HTTP endpoint: input {@code {url, method?, body?, timeoutMs?, auth?: {secretRef, header?}}}, output
 * {@code {status, body}}. A 5xx or an I/O error is retryable; a 4xx is not, since sending the same request again will
 * not help.
 *
 * <p>Whoever writes the workflow, and often whoever starts the run, chooses the URL, so the call is bounded by the
 * pod's settings ({@link HttpSettings}): the host's every address must pass the egress policy, and the connection goes
 * to the address that was checked; the whole exchange must finish within {@code ductor.http.max-time} and its answer
 * stay under {@code ductor.http.max-response-bytes}. Credentials come from a secret the pod holds
 * ({@code ductor.http.secrets.<name>}), named by {@code auth.secretRef}, so they never stand in a definition, an input
 * or an error.
 *
 * <p>A step may be attempted more than once (a retry after a timeout whose request did arrive, an operator's retry
 * of a hung call), so every request carries {@code Idempotency-Key}, the same for every attempt of this node of this
 * run (a structured-field string, as the IETF Idempotency-Key draft has it), and {@code Ductor-Attempt}, the
 * attempt's number: a service that deduplicates on the key performs the effect once.
 */
@ApplicationScoped
public class HttpHandler implements StepHandler {

    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]{1,64}");

    private final Vertx vertx;
    private final Supplier<HttpSettings> settings;
    private volatile BoundedExchange exchange;

    @Inject
    public HttpHandler(Vertx vertx, PodHttpSettings settings) {
        this.vertx = vertx;
        this.settings = settings::get;
    }

    public HttpHandler(Vertx vertx, HttpSettings settings) {
        this.vertx = vertx;
        this.settings = () -> settings;
    }

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
        HttpSettings bounds = settings.get();
        if (input == null || !input.hasNonNull("url")) {
            throw new StepFailure("http needs input {\"url\": ...}", false);
        }
        URI uri = uri(input.get("url").asText());
        String shown = shown(uri);
        String method = input.hasNonNull("method") ? input.get("method").asText().toUpperCase() : "GET";
        if (!TOKEN.matcher(method).matches()) {
            throw new StepFailure("http: bad method '" + method + "'", false);
        }
        String body = input.hasNonNull("body") ? input.get("body").toString() : null;
        Duration timeLimit = bounds.maxTime();
        String timeLimitSetting = "ductor.http.max-time";
        if (input.hasNonNull("timeoutMs") && input.get("timeoutMs").asLong() > 0
                && input.get("timeoutMs").asLong() < bounds.maxTime().toMillis()) {
            timeLimit = Duration.ofMillis(input.get("timeoutMs").asLong());
            timeLimitSetting = "the step's timeoutMs, at most ductor.http.max-time";
        }
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/json");
        headers.put("Idempotency-Key", "\"" + step.idempotencyKey() + "\"");
        headers.put("Ductor-Attempt", Integer.toString(step.attempt()));
        addSecret(input.get("auth"), bounds, headers);

        InetAddress address = checkedAddress(uri, bounds.policy(), method, shown);
        BoundedExchange.Answer response = exchange().send(method, uri, address, headers, body, timeLimit, timeLimitSetting,
                bounds.maxResponseBytes(), shown);
        if (response.status() >= 500) {
            throw new StepFailure("http " + method + " " + shown + " answered " + response.status(), true);
        }
        if (response.status() >= 400) {
            throw new StepFailure("http " + method + " " + shown + " answered " + response.status(), false);
        }
        ObjectNode output = JsonNodeFactory.instance.objectNode();
        output.put("status", response.status());
        output.put("body", response.body());
        return output;
    }

    private static URI uri(String url) throws StepFailure {
        URI uri;
        try {
            uri = URI.create(url);
        } catch (IllegalArgumentException e) {
            throw new StepFailure("http: bad url: " + e.getMessage(), false);
        }
        if (!("http".equalsIgnoreCase(uri.getScheme()) || "https".equalsIgnoreCase(uri.getScheme())) || uri.getHost() == null) {
            throw new StepFailure("http: the url must be http:// or https:// with a host", false);
        }
        return uri;
    }

    /** The URL as errors show it: without user info and query, either of which may carry a credential. */
    private static String shown(URI uri) {
        return uri.getScheme() + "://" + uri.getHost() + (uri.getPort() == -1 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    /** Resolves the host once and checks every address it has; the call then connects to one of those. */
    private static InetAddress checkedAddress(URI uri, EgressPolicy policy, String method, String shown) throws StepFailure {
        String host = uri.getHost().startsWith("[") ? uri.getHost().substring(1, uri.getHost().length() - 1) : uri.getHost();
        List<InetAddress> addresses;
        try {
            addresses = List.of(InetAddress.getAllByName(host));
        } catch (UnknownHostException e) {
            throw new StepFailure("http " + method + " " + shown + ": cannot resolve '" + host + "'", true);
        }
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        EgressPolicy.Verdict verdict = policy.check(host, port, addresses);
        if (!verdict.allowed()) {
            throw new StepFailure("http " + method + " " + shown + " refused: " + verdict.reason(), false);
        }
        return addresses.get(0);
    }

    private static void addSecret(JsonNode auth, HttpSettings bounds, Map<String, String> headers) throws StepFailure {
        if (auth == null || auth.isNull()) {
            return;
        }
        String name = auth.path("secretRef").asText("");
        String header = auth.path("header").asText("Authorization");
        if (name.isEmpty() || !TOKEN.matcher(header).matches()) {
            throw new StepFailure("http: auth must be {\"secretRef\": \"<name>\", \"header\"?: \"<header name>\"}", false);
        }
        String value = bounds.secrets().get(name);
        if (value == null) {
            throw new StepFailure("http: no secret named '" + name + "' is configured on this pod (ductor.http.secrets."
                    + name + ")", false);
        }
        headers.put(header, value);
    }

    private BoundedExchange exchange() {
        BoundedExchange current = exchange;
        if (current == null) {
            synchronized (this) {
                if (exchange == null) {
                    exchange = new BoundedExchange(vertx.createHttpClient(new HttpClientOptions()
                            .setMaxPoolSize(32)
                            .setVerifyHost(true)));
                }
                current = exchange;
            }
        }
        return current;
    }
}
