package dev.ductor.sdk;

import com.sun.net.httpserver.HttpServer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A token file is read again when it changes, as a mounted secret rotated in place (Kubernetes swaps a symbolic link to
 * a new file), and the next request carries the new token; between changes it is not read again.
 */
@Tag("unit")
class TokenFileTest {

    @Test
    void aRotatedTokenFileIsSentFromTheNextRequestOn(@TempDir Path dir) throws Exception {
        List<String> seen = new CopyOnWriteArrayList<>();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/", exchange -> {
            seen.add(exchange.getRequestHeaders().getFirst("Authorization"));
            byte[] body = "{\"name\":\"w\",\"revision\":1,\"definition\":{}}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.getResponseHeaders().add("ETag", "\"1\"");
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            Path first = Files.writeString(dir.resolve("first.jwt"), "token-one\n");
            Path second = Files.writeString(dir.resolve("second.jwt"), "token-two-rotated\n");
            Path mounted = dir.resolve("worker.jwt");
            Files.createSymbolicLink(mounted, first);
            DuctorClient client = DuctorClient.builder().baseUri("http://127.0.0.1:" + server.getAddress().getPort())
                    .tokenFile(mounted).build();

            client.getWorkflow("w");
            client.getWorkflow("w");
            Path swap = dir.resolve("swap.jwt");
            Files.createSymbolicLink(swap, second);
            Files.move(swap, mounted, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            client.getWorkflow("w");

            assertEquals(List.of("Bearer token-one", "Bearer token-one", "Bearer token-two-rotated"), seen);
        } finally {
            server.stop(0);
        }
    }
}
