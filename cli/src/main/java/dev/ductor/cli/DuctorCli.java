package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.ductor.sdk.ConflictException;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.DuctorException;
import dev.ductor.sdk.PreconditionRequiredException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

/**
 * {@code ductor}: the command line for Ductor's REST API. Exit codes: 0 success, 2 usage error, 3 a conflict (409:
 * the current version and what was rejected are printed), 1 anything else.
 */
// scope INHERIT: every subcommand, to any depth, takes --help/-h and --version/-V as well.
@Command(name = "ductor", scope = ScopeType.INHERIT, mixinStandardHelpOptions = true, version = "ductor 0.1.0",
        description = "Ductor's command line: workflows, runs, bulk actions, pools, rules, schedules and events over the REST API.",
        subcommands = {WorkflowCommands.class, RunCommands.class, BulkCommands.class, PoolCommands.class, RuleCommands.class,
                ScheduleCommands.class, EventCommands.class},
        footer = {"", "Exit codes: 0 success, 2 usage error, 3 conflict (409), 1 otherwise.",
                "Server: --server or DUCTOR_SERVER (default http://localhost:8080).",
                "Token: --token, --token-file or DUCTOR_TOKEN. Without one, on localhost: the dev",
                "token of the role the command needs (or --role), the nearest",
                ".ductor/dev-tokens/<role>.jwt from the working directory upward, else the one",
                "the server's /api/v1/dev-tokens hands out."})
public final class DuctorCli implements Runnable {

    public static final int OK = 0;
    public static final int FAILED = 1;
    public static final int USAGE = 2;
    public static final int CONFLICT = 3;

    static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** What a command reads from outside: environment, working and home directories, and where it prints. */
    public record Env(Map<String, String> vars, Path workingDir, Path home, PrintWriter out, PrintWriter err) {
    }

    enum Output { table, json }

    @Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--server", paramLabel = "URL", scope = ScopeType.INHERIT, description = "Ductor's base URL (default: DUCTOR_SERVER, else http://localhost:8080)")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN", scope = ScopeType.INHERIT, description = "bearer token (default: DUCTOR_TOKEN)")
    String token;

    @Option(names = "--token-file", paramLabel = "FILE", scope = ScopeType.INHERIT, description = "file holding the bearer token")
    Path tokenFile;

    @Option(names = "--role", paramLabel = "ROLE", scope = ScopeType.INHERIT,
            description = "which dev token to use on localhost: admin, operator, client or worker (default: per command)")
    String role;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", scope = ScopeType.INHERIT, description = "table or json (default table)")
    Output output = Output.table;

    final Env env;

    DuctorCli(Env env) {
        this.env = env;
    }

    @Override
    public void run() {
        throw missingSubcommand(spec);
    }

    /** A command group called without one of its commands: a usage error naming them (exit 2). */
    static CommandLine.ParameterException missingSubcommand(CommandLine.Model.CommandSpec group) {
        return new CommandLine.ParameterException(group.commandLine(), "name a command of '" + group.qualifiedName() + "': "
                + String.join(", ", group.subcommands().keySet()) + " (or --help)");
    }

    /** Runs one command line and returns its exit code. */
    public static int execute(Env env, String... args) {
        CommandLine line = commandLine(env);
        return line.execute(args);
    }

    static CommandLine commandLine(Env env) {
        DuctorCli root = new DuctorCli(env);
        CommandLine line = new CommandLine(root);
        line.setOut(env.out());
        line.setErr(env.err());
        line.setCaseInsensitiveEnumValuesAllowed(true);
        line.setExecutionExceptionHandler((e, cmd, parsed) -> {
            PrintWriter err = cmd.getErr();
            if (e instanceof UsageException usage) {
                err.println("ductor: " + usage.getMessage());
                err.flush();
                return USAGE;
            }
            if (e instanceof ConflictException conflict) {
                root.conflict(conflict);
                return CONFLICT;
            }
            if (e instanceof PreconditionRequiredException precondition) {
                err.println("ductor: " + precondition.getMessage());
                err.println("ductor: read it first (its get command remembers the version you saw) or pass --if-match <version>.");
                err.flush();
                return FAILED;
            }
            if (e instanceof DuctorException failure) {
                err.println("ductor: " + (failure.status() == 0 ? "" : failure.status() + " ") + failure.getMessage());
                if (failure.problem() != null && failure.problem().has("violations")) {
                    err.println(failure.problem().get("violations").toPrettyString());
                }
                err.flush();
                return FAILED;
            }
            err.println("ductor: " + e);
            err.flush();
            return FAILED;
        });
        return line;
    }

    /** A 409: what is there now and what was not saved, so the user can compare and resend. */
    void conflict(ConflictException conflict) {
        PrintWriter err = env.err();
        err.println("ductor: conflict (409): " + conflict.getMessage());
        if (output == Output.json) {
            env.out().println(conflict.problem() == null ? "{}" : conflict.problem().toPrettyString());
            env.out().flush();
        } else {
            if (conflict.currentVersion() != null) {
                err.println("current version: " + conflict.currentVersion());
            }
            if (conflict.current() != null) {
                err.println("current: " + conflict.current().toPrettyString());
            }
            if (conflict.rejected() != null) {
                err.println("rejected (not saved): " + conflict.rejected().toPrettyString());
            }
        }
        err.flush();
    }

    // ---- configuration -----------------------------------------------------------------------------------------

    String serverUrl() {
        if (server != null && !server.isBlank()) {
            return server;
        }
        String fromEnv = env.vars().get("DUCTOR_SERVER");
        return fromEnv != null && !fromEnv.isBlank() ? fromEnv : "http://localhost:8080";
    }

    /** A client whose token is for {@code defaultRole} unless --role, --token, --token-file or DUCTOR_TOKEN says otherwise. */
    DuctorClient client(String defaultRole) {
        String url = serverUrl();
        DuctorClient.Builder builder = DuctorClient.builder().baseUri(url).objectMapper(new ObjectMapper())
                .maxPollInterval(java.time.Duration.ofMillis(500)); // a person is watching: look often
        if (token != null && !token.isBlank()) {
            return builder.token(token).build();
        }
        if (tokenFile != null) {
            Path file = env.workingDir().resolve(tokenFile);
            if (!Files.isReadable(file)) {
                throw new UsageException("cannot read the token file " + file);
            }
            return builder.tokenFile(file).build();
        }
        String fromEnv = env.vars().get("DUCTOR_TOKEN");
        if (fromEnv != null && !fromEnv.isBlank()) {
            return builder.token(fromEnv).build();
        }
        if (!isLocal(url)) {
            // Dev tokens are for a server on this machine only: never sent anywhere else.
            throw new UsageException("no token: pass --token or --token-file, or set DUCTOR_TOKEN");
        }
        String chosen = role != null ? role : defaultRole;
        DevTokenLookup lookup = new DevTokenLookup();
        var file = lookup.nearestFile(env.workingDir(), chosen);
        if (file.isPresent()) {
            return builder.tokenFile(file.get()).build();
        }
        var served = lookup.fromServer(url, chosen);
        if (served.isPresent()) {
            return builder.token(served.get()).build();
        }
        throw new UsageException("no token: pass --token or --token-file, or set DUCTOR_TOKEN (" + lookup.tried() + ")");
    }

    private static boolean isLocal(String url) {
        try {
            String host = URI.create(url).getHost();
            return host != null && Set.of("localhost", "127.0.0.1", "::1", "[::1]").contains(host);
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    SeenVersions seen() {
        String file = env.vars().get("DUCTOR_STATE_FILE");
        return new SeenVersions(file != null && !file.isBlank() ? Path.of(file)
                : env.home().resolve(".ductor").resolve("cli-seen.json"), serverUrl());
    }

    boolean json() {
        return output == Output.json;
    }

    void printJson(JsonNode node) {
        try {
            env.out().println(JSON.writeValueAsString(node));
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        env.out().flush();
    }

    void println(String line) {
        env.out().println(line);
        env.out().flush();
    }

    /** Reads JSON given inline or from a file (one of them), relative to the working directory. */
    JsonNode readJson(String inline, Path file, String what) {
        if (inline != null && file != null) {
            throw new UsageException("give " + what + " inline or as a file, not both");
        }
        try {
            if (file != null) {
                return JSON.readTree(Files.readString(env.workingDir().resolve(file)));
            }
            return inline == null ? null : JSON.readTree(inline);
        } catch (IOException e) {
            throw new UsageException(what + " is not valid JSON: " + e.getMessage());
        }
    }

    /** A mistake in how the command was called: exit code 2. */
    static final class UsageException extends RuntimeException {
        UsageException(String message) {
            super(message);
        }
    }
}
