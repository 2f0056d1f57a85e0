package dev.ductor.support;

import io.restassured.RestAssured;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** A text/event-stream read over plain HTTP, event by event, the way an API client (or a CLI's --follow) reads it. */
public final class SseStream implements AutoCloseable {

    public record Event(String name, String id, String data) {
    }

    private static final Event END = new Event("<end>", null, null);

    public final int status;
    public final String contentType;
    public final String body;
    private final BlockingQueue<Event> events = new LinkedBlockingQueue<>();
    private final BlockingQueue<String> comments = new LinkedBlockingQueue<>();
    private final Thread reader;
    private volatile Stream<String> lines;

    private SseStream(HttpResponse<Stream<String>> response) {
        this.status = response.statusCode();
        this.contentType = response.headers().firstValue("Content-Type").orElse("");
        if (status != 200) {
            this.body = String.join("\n", response.body().toList());
            this.reader = null;
            events.add(END);
            return;
        }
        this.body = null;
        this.lines = response.body();
        this.reader = new Thread(this::read, "sse-test-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Opens {@code path} (under the test server) with a bearer token and, if not null, a Last-Event-ID. */
    public static SseStream open(String path, String token, String lastEventId) throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(RestAssured.baseURI + ":" + RestAssured.port + path))
                .header("Accept", "text/event-stream")
                .GET();
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        if (lastEventId != null) {
            request.header("Last-Event-ID", lastEventId);
        }
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        return new SseStream(client.send(request.build(), HttpResponse.BodyHandlers.ofLines()));
    }

    private void read() {
        String name = null;
        String id = null;
        StringBuilder data = null;
        try {
            for (var it = lines.iterator(); it.hasNext(); ) {
                String line = it.next();
                if (line.isEmpty()) {
                    if (data != null) {
                        events.add(new Event(name == null ? "message" : name, id, data.toString()));
                    }
                    name = null;
                    id = null;
                    data = null;
                } else if (line.startsWith(":")) {
                    comments.add(line.substring(1).trim());
                } else if (line.startsWith("event:")) {
                    name = line.substring(6).trim();
                } else if (line.startsWith("id:")) {
                    id = line.substring(3).trim();
                } else if (line.startsWith("data:")) {
                    String value = line.substring(5).startsWith(" ") ? line.substring(6) : line.substring(5);
                    data = data == null ? new StringBuilder(value) : data.append('\n').append(value);
                }
            }
        } catch (RuntimeException closed) {
            // the stream was closed by us or the server
        } finally {
            events.add(END);
        }
    }

    /** The next event, or null if none came within {@code timeout}; throws if the stream ended instead. */
    public Event next(Duration timeout) throws InterruptedException {
        Event event = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (event == END) {
            events.add(END);
            throw new IllegalStateException("the stream ended");
        }
        return event;
    }

    /** True when the server ends the stream within {@code timeout} with no further event. */
    public boolean endsWithin(Duration timeout) throws InterruptedException {
        Event event = events.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (event != null && event != END) {
            throw new IllegalStateException("expected the end of the stream, got event " + event);
        }
        return event == END;
    }

    /** The next comment line (a heartbeat), or null. */
    public String comment(Duration timeout) throws InterruptedException {
        return comments.poll(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public void close() {
        if (lines != null) {
            lines.close();
        }
        if (reader != null) {
            reader.interrupt();
        }
    }
}
