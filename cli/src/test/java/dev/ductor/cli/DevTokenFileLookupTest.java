package dev.ductor.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The file steps of the dev-token lookup ({@link DevTokenLookup#nearestFile}), on real directories, and that no dev
 * token is ever used for a server elsewhere. The steps that need a server (the server's own dev-token route, and that
 * {@code --token} and {@code DUCTOR_TOKEN} come first) are in {@link DuctorCliIT}.
 */
@Tag("unit")
class DevTokenFileLookupTest {

    @TempDir
    Path root;

    private Path token(Path dir, String role, String token) throws Exception {
        Path file = dir.resolve(".ductor").resolve("dev-tokens").resolve(role + ".jwt");
        Files.createDirectories(file.getParent());
        Files.writeString(file, token);
        return file;
    }

    @Test
    void aTokenInTheWorkingDirectoryIsFound() throws Exception {
        Path file = token(root, "client", "t-here");
        assertEquals(Optional.of(file), new DevTokenLookup().nearestFile(root, "client"));
    }

    @Test
    void aTokenInAParentDirectoryIsFoundFromBelowIt() throws Exception {
        Path file = token(root, "operator", "t-root");
        Path deep = Files.createDirectories(root.resolve("src").resolve("main").resolve("java"));
        assertEquals(Optional.of(file), new DevTokenLookup().nearestFile(deep, "operator"));
    }

    @Test
    void theNearestDirectoryWins() throws Exception {
        token(root, "admin", "t-root");
        Path sub = Files.createDirectories(root.resolve("sub"));
        Path nearer = token(sub, "admin", "t-sub");
        assertEquals(Optional.of(nearer), new DevTokenLookup().nearestFile(sub.resolve("."), "admin"));
    }

    @Test
    void onlyTheRoleAskedForCounts() throws Exception {
        token(root, "worker", "t-worker");
        Path sub = Files.createDirectories(root.resolve("sub"));
        Path admin = token(sub, "admin", "t-admin");
        Path below = Files.createDirectories(sub.resolve("below"));
        DevTokenLookup lookup = new DevTokenLookup();
        assertEquals(Optional.of(root.resolve(".ductor/dev-tokens/worker.jwt")), lookup.nearestFile(below, "worker"));
        assertEquals(Optional.of(admin), lookup.nearestFile(below, "admin"));
    }

    @Test
    void noneAnywhereUpwardSaysWhereItLooked() throws Exception {
        Path dir = Files.createDirectories(root.resolve("empty"));
        DevTokenLookup lookup = new DevTokenLookup();
        // A role no directory up to / can have a token for: the temporary directory's parents are not the test's.
        Optional<Path> found = lookup.nearestFile(dir, "no-such-role-" + System.nanoTime());
        assertTrue(found.isEmpty(), "found " + found);
        assertTrue(lookup.tried().contains(dir.toString()) && lookup.tried().contains("or its parents"), lookup.tried());
    }

    @Test
    void aServerElsewhereNeverGetsADevToken() throws Exception {
        token(root, "client", "t-local");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        DuctorCli.Env env = new DuctorCli.Env(Map.of("DUCTOR_SERVER", "http://ductor.invalid:8080"), root, root,
                new PrintWriter(out, true), new PrintWriter(err, true));
        int code = DuctorCli.execute(env, "workflow", "list");
        assertEquals(DuctorCli.USAGE, code, out + "" + err);
        assertTrue(err.toString().contains("no token: pass --token or --token-file, or set DUCTOR_TOKEN"), err.toString());
    }
}
