package dev.ductor.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * The version of each resource the user last saw (through a get or an apply), per server, in a small JSON file
 * ({@code ~/.ductor/cli-seen.json}, or {@code DUCTOR_STATE_FILE}). An edit sends it as {@code If-Match}, so a change
 * someone else made since is a 409 instead of being overwritten.
 */
final class SeenVersions {

    private final Path file;
    private final String server;

    SeenVersions(Path file, String server) {
        this.file = file;
        this.server = server;
    }

    Long get(String kind, String name) {
        ObjectNode all = read();
        String key = key(kind, name);
        return all.hasNonNull(key) ? all.get(key).asLong() : null;
    }

    void put(String kind, String name, long version) {
        ObjectNode all = read();
        all.put(key(kind, name), version);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Path temp = Files.createTempFile(file.toAbsolutePath().getParent(), ".cli-seen", ".json");
            Files.writeString(temp, DuctorCli.JSON.writeValueAsString(all));
            Files.move(temp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private String key(String kind, String name) {
        return server + " " + kind + " " + name;
    }

    private ObjectNode read() {
        if (!Files.isRegularFile(file)) {
            return DuctorCli.JSON.createObjectNode();
        }
        try {
            return (ObjectNode) DuctorCli.JSON.readTree(Files.readString(file));
        } catch (IOException | ClassCastException e) {
            return DuctorCli.JSON.createObjectNode(); // unreadable: start over rather than refuse to work
        }
    }
}
