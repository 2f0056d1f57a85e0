package dev.ductor.api;

import dev.ductor.support.Api;
import dev.ductor.security.DevTokenIssuer;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A client that hangs up before its answer (here: half of a request body, then the socket closed) is normal traffic,
 * not an "unexpected error" with a stack trace: at most one DEBUG line, nothing at WARN or ERROR.
 */
@QuarkusTest
@Tag("api")
class ClientDisconnectLoggingTest {

    @Inject
    DevTokenIssuer issuer;

    @Test
    void aClientThatDisconnectsMidRequestIsOneDebugLine() throws Exception {
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture = new Handler() {
            @Override
            public void publish(LogRecord record) {
                records.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        Logger root = Logger.getLogger("");
        Logger mapper = Logger.getLogger(ProblemMapper.class.getName());
        Level before = mapper.getLevel();
        mapper.setLevel(Level.ALL);
        root.addHandler(capture);
        try {
            URI base = URI.create(RestAssured.baseURI);
            for (int i = 0; i < 3; i++) {
                try (Socket socket = new Socket(base.getHost(), RestAssured.port)) {
                    OutputStream out = socket.getOutputStream();
                    out.write(("POST /api/v1/events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                            + "Authorization: Bearer " + issuer.mint("client", Api.unique("hangup")) + "\r\n"
                            + "Content-Length: 100000\r\n\r\n{\"type\": \"t\", \"payload\": {\"text\": \"").getBytes(StandardCharsets.UTF_8));
                    out.flush();
                    Thread.sleep(300);
                }
            }
            Thread.sleep(1500);
        } finally {
            root.removeHandler(capture);
            mapper.setLevel(before);
        }
        List<LogRecord> loud = records.stream()
                .filter(r -> r.getLevel().intValue() >= Level.WARNING.intValue())
                .filter(r -> r.getThrown() != null || String.valueOf(r.getMessage()).contains("unexpected")
                        || String.valueOf(r.getMessage()).toLowerCase().contains("closed"))
                .toList();
        assertEquals(List.of(), loud.stream().map(r -> r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage()
                + (r.getThrown() == null ? "" : " " + r.getThrown())).toList(), "a hang-up logged as an error");
        List<LogRecord> fromMapper = records.stream().filter(r -> ProblemMapper.class.getName().equals(r.getLoggerName())).toList();
        assertTrue(fromMapper.stream().allMatch(r -> r.getThrown() == null && r.getLevel().intValue() < Level.INFO.intValue()),
                () -> fromMapper.stream().map(r -> r.getLevel() + " " + r.getMessage()).toList().toString());
    }
}
