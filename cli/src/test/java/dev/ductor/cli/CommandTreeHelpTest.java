package dev.ductor.cli;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command of the tree, found by walking it (so a command added later is covered without touching this test),
 * answers {@code --help} and {@code -h} with its usage and exit 0, names every argument (no picocli {@code <arg0>}
 * placeholder), and a command group called alone is a usage error naming its commands. No server: help never needs one.
 */
@Tag("unit")
class CommandTreeHelpTest {

    @TempDir
    Path dir;

    record Result(int code, String out, String err) {
    }

    private Result cli(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        // A server no test listens on, and no token: help must not need either.
        DuctorCli.Env env = new DuctorCli.Env(Map.of("DUCTOR_SERVER", "http://ductor.invalid"), dir, dir,
                new PrintWriter(out, true), new PrintWriter(err, true));
        int code = DuctorCli.execute(env, args.toArray(String[]::new));
        return new Result(code, out.toString(), err.toString());
    }

    /** The path of every command below the root, e.g. [run, start], parents before their children. */
    private static List<List<String>> commands(CommandLine line, List<String> path, List<List<String>> into) {
        for (CommandLine sub : line.getSubcommands().values()) {
            List<String> at = new ArrayList<>(path);
            at.add(sub.getCommandName());
            into.add(at);
            commands(sub, at, into);
        }
        return into;
    }

    private List<List<String>> tree() {
        DuctorCli.Env env = new DuctorCli.Env(Map.of(), dir, dir, new PrintWriter(new StringWriter()), new PrintWriter(new StringWriter()));
        List<List<String>> all = new ArrayList<>();
        all.add(List.of());
        return commands(DuctorCli.commandLine(env), List.of(), all);
    }

    @Test
    void theWalkSeesEveryCommandGroupAndItsCommands() {
        List<List<String>> tree = tree();
        for (List<String> expected : List.of(List.of("run", "start"), List.of("run", "reset"), List.of("workflow", "apply"),
                List.of("bulk", "start"), List.of("pool", "set"), List.of("rule", "apply"), List.of("schedule", "pause"),
                List.of("event", "send"))) {
            assertTrue(tree.contains(expected), "the walk found " + expected + ": " + tree);
        }
        assertTrue(tree.size() > 30, "the whole tree, not a part of it: " + tree);
    }

    @Test
    void everyCommandAnswersHelpWithItsUsageAndExitZero() {
        for (List<String> command : tree()) {
            for (String flag : List.of("--help", "-h")) {
                List<String> args = new ArrayList<>(command);
                args.add(flag);
                Result result = cli(args);
                String name = String.join(" ", args);
                assertEquals(0, result.code(), "ductor " + name + " exits 0; stderr: " + result.err());
                String usage = ("Usage: ductor " + String.join(" ", command)).trim();
                assertTrue(result.out().startsWith(usage), "ductor " + name + " prints its usage (" + usage + "...): " + result.out());
                assertTrue(result.out().contains("-h, --help"), "ductor " + name + " lists --help itself: " + result.out());
                assertFalse(result.out().contains("<arg"), "ductor " + name + " names every argument, no <argN>: " + result.out());
                assertEquals("", result.err(), "ductor " + name + " prints nothing on stderr");
            }
        }
    }

    @Test
    void helpComesBeforeAnyCheckOfTheArguments() {
        // A missing required argument or option is not reported when help is asked for.
        Result reset = cli(List.of("run", "reset", "--help"));
        assertEquals(0, reset.code(), reset.err());
        assertTrue(reset.out().contains("RUN_ID"), reset.out());
        Result pool = cli(List.of("pool", "set", "--help"));
        assertEquals(0, pool.code(), pool.err());
        assertTrue(pool.out().contains("--capacity=N"), pool.out());
    }

    @Test
    void everyCommandAnswersVersion() {
        Result version = cli(List.of("run", "start", "--version"));
        assertEquals(0, version.code(), version.err());
        assertEquals("ductor 0.1.0", version.out().trim());
    }

    @Test
    void aCommandGroupCalledAloneIsAUsageErrorNamingItsCommands() {
        for (List<String> command : tree()) {
            CommandLine line = DuctorCli.commandLine(new DuctorCli.Env(Map.of(), dir, dir, new PrintWriter(new StringWriter()),
                    new PrintWriter(new StringWriter())));
            for (String name : command) {
                line = line.getSubcommands().get(name);
            }
            if (line.getSubcommands().isEmpty()) {
                continue;
            }
            Result result = cli(command);
            String name = ("ductor " + String.join(" ", command)).trim();
            assertEquals(DuctorCli.USAGE, result.code(), name + " alone is a usage error: " + result.out() + result.err());
            for (String sub : line.getSubcommands().keySet()) {
                assertTrue(result.err().contains(sub), name + " alone names its command " + sub + ": " + result.err());
            }
        }
    }
}
