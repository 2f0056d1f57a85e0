package dev.ductor.worker.egress;

import dev.ductor.worker.StepFailure;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpClientResponse;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.SocketAddress;

import java.net.InetAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

/**
 * One HTTP exchange with hard bounds, for a blocking caller. It connects to the address the policy checked, not to
 * whatever the name resolves to by then (Vert.x {@code RequestOptions.setServer}), so a name cannot be rebound to an
 * internal address between the check and the connection; the Host header, TLS SNI and certificate check still use the
 * URL's host name. The body is read as it streams, and the exchange is cut as soon as it passes the size cap or the
 * deadline (the JDK client's timeout stops counting once headers arrive, and it reads a whole body before anyone can
 * look at its size). Redirects are not followed: a redirect could lead anywhere.
 */
public final class BoundedExchange {

    /** A finished exchange: the status and the body as text. */
    public record Answer(int status, String body) {
    }

    private final HttpClient client;

    public BoundedExchange(HttpClient client) {
        this.client = client;
    }

    /**
     * @param shownUrl how errors name the URL (without its query or user info, which may carry credentials)
     * @throws StepFailure past a cap (the size: not retryable; the time: retryable) or on an I/O error (retryable)
     * @throws InterruptedException when the step is interrupted; the exchange is cut first
     */
    public Answer send(String method, URI uri, InetAddress address, Map<String, String> headers, String body,
                       Duration timeLimit, String timeLimitSetting, long maxBytes, String shownUrl)
            throws StepFailure, InterruptedException {
        long deadline = System.nanoTime() + timeLimit.toNanos();
        CompletableFuture<Answer> answer = new CompletableFuture<>();
        AtomicReference<HttpClientRequest> request = new AtomicReference<>();
        int port = uri.getPort() != -1 ? uri.getPort() : "https".equalsIgnoreCase(uri.getScheme()) ? 443 : 80;
        RequestOptions options = new RequestOptions()
                .setMethod(HttpMethod.valueOf(method))
                .setAbsoluteURI(uri.toString())
                .setServer(SocketAddress.inetSocketAddress(port, address.getHostAddress()))
                .setConnectTimeout(Math.min(timeLimit.toMillis(), 10_000))
                .setIdleTimeout(timeLimit.toMillis())
                .setFollowRedirects(false);
        headers.forEach(options::putHeader);
        client.request(options).onFailure(answer::completeExceptionally).onSuccess(sending -> {
            request.set(sending);
            if (answer.isDone()) { // the caller gave up while connecting
                sending.reset();
                return;
            }
            // The response's handlers are attached before the request is sent: attached to a future completed already
            // (a listener added after send() returned, from another thread), they could come after the whole body had
            // been read, the exchange never ending ("Response already ended"). Attached first, they run on the event
            // loop the moment the response's head arrives, before any of its body.
            sending.response().onFailure(answer::completeExceptionally)
                    .onSuccess(response -> read(response, sending, answer, method, shownUrl, maxBytes));
            (body == null ? sending.end() : sending.end(Buffer.buffer(body, "UTF-8"))).onFailure(answer::completeExceptionally);
        });
        try {
            return answer.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException late) {
            cut(answer, request);
            throw new StepFailure("http " + method + " " + shownUrl + " did not finish within " + timeLimit.toMillis()
                    + " ms (" + timeLimitSetting + "), body included; cut off", true);
        } catch (InterruptedException interrupted) {
            cut(answer, request);
            throw interrupted;
        } catch (ExecutionException failed) {
            Throwable cause = failed.getCause();
            if (cause instanceof StepFailure stepFailure) {
                throw stepFailure;
            }
            throw new StepFailure("http " + method + " " + shownUrl + " failed: " + cause.getClass().getSimpleName()
                    + ": " + cause.getMessage(), true);
        }
    }

    private static void read(HttpClientResponse response, HttpClientRequest sending, CompletableFuture<Answer> answer,
                             String method, String shownUrl, long maxBytes) {
        Buffer received = Buffer.buffer();
        response.exceptionHandler(answer::completeExceptionally);
        response.handler(chunk -> {
            if (answer.isDone()) {
                return;
            }
            if ((long) received.length() + chunk.length() > maxBytes) {
                answer.completeExceptionally(new StepFailure("http " + method + " " + shownUrl + " answered more than "
                        + maxBytes + " bytes (ductor.http.max-response-bytes); the rest was not read", false));
                sending.reset();
                return;
            }
            received.appendBuffer(chunk);
        });
        response.endHandler(end -> answer.complete(new Answer(response.statusCode(), received.toString(StandardCharsets.UTF_8))));
    }

    private static void cut(CompletableFuture<Answer> answer, AtomicReference<HttpClientRequest> request) {
        answer.cancel(false);
        HttpClientRequest sent = request.get();
        if (sent != null) {
            sent.reset();
        }
    }
}
