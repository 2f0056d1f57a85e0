package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.HistoryPage;
import dev.ductor.sdk.Page;
import dev.ductor.sdk.ResetOptions;
import dev.ductor.sdk.Run;
import dev.ductor.sdk.RunQuery;
import dev.ductor.sdk.RunSummary;
import dev.ductor.sdk.StartOptions;
import dev.ductor.sdk.Transition;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Iterator;
import java.util.Map;
import java.util.UUID;

@Command(name = "run", description = "Start, watch and operate runs.")
final class RunCommands implements Runnable {

    @Spec
    CommandSpec spec;

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "start", description = "Start a run of WORKFLOW; with --wait, wait for it and print it with its outputs.")
    int start(@Parameters(paramLabel = "WORKFLOW") String workflow,
              @Option(names = "--input", paramLabel = "JSON", description = "the run's input") String input,
              @Option(names = "--input-file", paramLabel = "FILE") Path inputFile,
              @Option(names = "--idempotency-key", paramLabel = "KEY", description = "the same key and input again: the same run") String key,
              @Option(names = "--tier", paramLabel = "TIER") String tier,
              @Option(names = "--tag", paramLabel = "KEY=VALUE",
                      description = "a tag to find the run by later (run list --tag KEY:VALUE); repeatable") Map<String, String> tags,
              @Option(names = "--wait", description = "wait until the run finishes; exit 1 unless it SUCCEEDED") boolean wait,
              @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT10M",
                      description = "how long --wait waits (ISO-8601, default PT10M)") Duration timeout) {
        JsonNode body = root.readJson(input, inputFile, "the input");
        DuctorClient client = root.client("client");
        Run run = client.startRun(workflow, body, new StartOptions(key, tier).tags(tags));
        if (!wait) {
            show(run);
            return DuctorCli.OK;
        }
        if (!root.json()) {
            root.println("started run " + run.runId() + ", waiting...");
        }
        Run done = client.awaitRun(run.runId(), timeout);
        show(done);
        if (!done.isTerminal()) {
            root.env.err().println("ductor: run " + done.runId() + " still " + done.status() + " after " + timeout);
            root.env.err().flush();
            return DuctorCli.FAILED;
        }
        return "SUCCEEDED".equals(done.status()) ? DuctorCli.OK : DuctorCli.FAILED;
    }

    @Command(name = "get", description = "A run with its nodes; remembers its version for retry, skip and reset.")
    int get(@Parameters(paramLabel = "RUN_ID") String runId) {
        Run run = root.client("client").getRun(runId);
        root.seen().put("run", runId, run.version());
        show(run);
        return DuctorCli.OK;
    }

    @Command(name = "list", description = "Run summaries (no input or output: 'run get' has them), newest first; --cursor pages on (the last line names the next cursor).")
    int list(@Option(names = "--workflow", paramLabel = "NAME") String workflow,
             @Option(names = "--status", paramLabel = "STATUS", description = "RUNNING, SUCCEEDED, FAILED or CANCELLED") String status,
             @Option(names = "--tag", paramLabel = "KEY:VALUE", description = "runs carrying this tag; repeat for runs carrying all")
             List<String> tags,
             @Option(names = "--limit", paramLabel = "N", defaultValue = "20", description = "runs per page, 1-200 (default 20)") int limit,
             @Option(names = "--cursor", paramLabel = "CURSOR", description = "where the previous page ended") String cursor) {
        Page<RunSummary> page = root.client("client").listRuns(new RunQuery(workflow, status, limit, cursor, tags));
        if (root.json()) {
            var node = DuctorCli.JSON.createObjectNode();
            var items = node.putArray("items");
            page.items().forEach(run -> items.add(run.json()));
            node.put("nextCursor", page.nextCursor());
            root.printJson(node);
        } else {
            Table table = new Table("RUN", "WORKFLOW", "STATUS", "VERSION", "CREATED", "TAGS");
            for (RunSummary run : page.items()) {
                table.row(run.runId(), run.workflow(), run.status(), Long.toString(run.version()), run.createdAt(),
                        tags(run.tags()));
            }
            table.print(root.env.out());
            if (page.hasMore()) {
                root.println("more: --cursor " + page.nextCursor());
            }
        }
        return DuctorCli.OK;
    }

    @Command(name = "history", description = "A run's transitions, read page by page; --limit prints one page (the last line names"
            + " the next --after); --follow prints new ones as they happen, until the run ends.")
    int history(@Parameters(paramLabel = "RUN_ID") String runId,
                @Option(names = "--after", paramLabel = "SEQ", defaultValue = "0", description = "only transitions after this seq") long after,
                @Option(names = "--limit", paramLabel = "N", description = "print one page of at most N transitions (1-1000)") Integer limit,
                @Option(names = {"-f", "--follow"}, description = "print new transitions as they happen, until the run ends") boolean follow,
                @Option(names = "--timeout", paramLabel = "DURATION", defaultValue = "PT1H",
                        description = "how long --follow follows (default PT1H)") Duration timeout) {
        DuctorClient client = root.client("client");
        if (limit != null && !follow) {
            HistoryPage page = client.historyPage(runId, after, limit);
            if (root.json()) {
                root.printJson(DuctorCli.JSON.valueToTree(page.items()));
            } else {
                page.items().forEach(this::printTransition);
                if (page.hasMore()) {
                    root.println("more: --after " + page.nextAfter());
                }
            }
            return DuctorCli.OK;
        }
        if (!follow) {
            if (root.json()) {
                root.printJson(DuctorCli.JSON.valueToTree(client.history(runId, after)));
                return DuctorCli.OK;
            }
            // Page by page as it is read: a long history starts printing at once and is never held whole.
            HistoryPage page = client.historyPage(runId, after, null);
            page.items().forEach(this::printTransition);
            while (page.hasMore()) {
                page = client.historyPage(runId, page.nextAfter(), null);
                page.items().forEach(this::printTransition);
            }
            return DuctorCli.OK;
        }
        long[] printed = {after};
        // Each look reads only what came after the last transition printed.
        Run last = client.watchRun(runId, timeout, run -> printNew(client, runId, printed));
        printNew(client, runId, printed);
        return last.isTerminal() ? DuctorCli.OK : DuctorCli.FAILED;
    }

    private void printNew(DuctorClient client, String runId, long[] printed) {
        for (Transition t : client.history(runId, printed[0])) {
            if (t.seq() > printed[0]) {
                printed[0] = t.seq();
                printTransition(t);
            }
        }
    }

    @Command(name = "signal", description = "Send signal NAME to a run (delivered once per idempotency key).")
    int signal(@Parameters(index = "0", paramLabel = "RUN_ID") String runId,
               @Parameters(index = "1", paramLabel = "NAME") String name,
               @Option(names = "--payload", paramLabel = "JSON") String payload,
               @Option(names = "--payload-file", paramLabel = "FILE") Path payloadFile,
               @Option(names = "--idempotency-key", paramLabel = "KEY", description = "default: a new random key") String key) {
        String idempotencyKey = key != null ? key : UUID.randomUUID().toString();
        JsonNode answer = root.client("client").signal(runId, name, root.readJson(payload, payloadFile, "the payload"), idempotencyKey);
        if (root.json()) {
            root.printJson(answer);
        } else {
            root.println("signal " + name + " " + answer.path("delivered").asText() + " (idempotency key " + idempotencyKey + ")");
        }
        return DuctorCli.OK;
    }

    @Command(name = "cancel", description = "Cancel a running run.")
    int cancel(@Parameters(paramLabel = "RUN_ID") String runId) {
        JsonNode answer = root.client("operator").cancel(runId);
        if (root.json()) {
            root.printJson(answer);
        } else {
            root.println("run " + runId + " cancelling");
        }
        return DuctorCli.OK;
    }

    @Command(name = "retry", description = "Retry a running node (supersedes its attempt), based on the run version you last saw.")
    int retry(@Parameters(index = "0", paramLabel = "RUN_ID") String runId, @Parameters(index = "1", paramLabel = "NODE") String node,
              @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        return nodeAction(runId, node, ifMatch, true);
    }

    @Command(name = "skip", description = "Skip a node as if it had succeeded, based on the run version you last saw.")
    int skip(@Parameters(index = "0", paramLabel = "RUN_ID") String runId, @Parameters(index = "1", paramLabel = "NODE") String node,
             @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        return nodeAction(runId, node, ifMatch, false);
    }

    /** Which nodes a reset reopens: exactly one of the two. */
    static final class ResetFrom {
        @Option(names = "--from", paramLabel = "NODE", arity = "1..*", required = true,
                description = "reset these nodes and everything downstream of them") List<String> nodes;
        @Option(names = "--failed-only", required = true, description = "reset the nodes that failed (and what is downstream)") boolean failedOnly;
    }

    @Command(name = "reset", description = "Run a FAILED or CANCELLED run again from some nodes (a SUCCEEDED one with --reopen-succeeded),"
            + " based on the run version you last saw (run get); a 409 exits 3 with the current version and what was rejected.")
    int reset(@Parameters(index = "0", paramLabel = "RUN_ID") String runId,
              @ArgGroup(exclusive = true, multiplicity = "1") ResetFrom from,
              @Option(names = "--to-current-revision", description = "pin the run to the workflow's current revision") boolean toCurrent,
              @Option(names = "--reopen-succeeded", description = "allow resetting a run that SUCCEEDED") boolean reopen,
              @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        DuctorClient client = root.client("operator");
        Long basedOn = basedOn(client, runId, ifMatch);
        ResetOptions options = from.failedOnly ? ResetOptions.failedOnly() : ResetOptions.fromNodes(from.nodes.toArray(String[]::new));
        if (toCurrent) {
            options = options.toCurrentRevision();
        }
        if (reopen) {
            options = options.reopenSucceeded();
        }
        Run run = client.resetRun(runId, options, basedOn);
        root.seen().put("run", runId, run.version());
        show(run);
        return DuctorCli.OK;
    }

    private Long basedOn(DuctorClient client, String runId, Long ifMatch) {
        Long basedOn = ifMatch != null ? ifMatch : root.seen().get("run", runId);
        if (basedOn == null) {
            // Never seen: act on the run as it is now, and say so.
            basedOn = client.getRun(runId).version();
            if (!root.json()) {
                root.println("(based on the run's current version " + basedOn + ")");
            }
        }
        return basedOn;
    }

    private int nodeAction(String runId, String node, Long ifMatch, boolean retry) {
        DuctorClient client = root.client("operator");
        Long basedOn = basedOn(client, runId, ifMatch);
        Run run = retry ? client.retryNode(runId, node, basedOn) : client.skipNode(runId, node, basedOn);
        root.seen().put("run", runId, run.version());
        show(run);
        return DuctorCli.OK;
    }

    private void show(Run run) {
        if (root.json()) {
            root.printJson(run.json());
            return;
        }
        root.println("run " + run.runId() + "  workflow " + run.workflow() + "  status " + run.status() + "  version " + run.version());
        if (run.parentRunId() != null) {
            root.println("parent run " + run.parentRunId());
        }
        if (!run.tags().isEmpty()) {
            root.println("tags " + tags(run.tags()));
        }
        Table table = new Table("NODE", "STATE", "ATTEMPTS", "OUTPUT / ERROR");
        for (Iterator<Map.Entry<String, JsonNode>> nodes = run.nodes().fields(); nodes.hasNext(); ) {
            Map.Entry<String, JsonNode> node = nodes.next();
            JsonNode state = node.getValue();
            String detail = state.hasNonNull("error") ? "error: " + state.get("error").asText()
                    : state.hasNonNull("output") ? state.get("output").toString() : "";
            table.row(node.getKey(), state.path("state").asText(), state.path("attempts").asText(),
                    language(run, node.getKey()) + detail);
        }
        table.print(root.env.out());
        List<Run.Child> children = run.children();
        if (!children.isEmpty()) {
            Table started = new Table("CHILD RUN", "NODE", "ATTEMPT", "WORKFLOW", "STATUS");
            children.forEach(c -> started.row(c.runId(), c.node(), Integer.toString(c.attempt()), c.workflow(), c.status()));
            started.print(root.env.out());
        }
        if (run.output() != null) {
            root.println("output: " + run.output());
        }
    }

    /** Tags as {@code run list --tag} takes them, {@code key:value} each, space-separated. */
    private static String tags(Map<String, String> tags) {
        StringBuilder text = new StringBuilder();
        tags.forEach((key, value) -> text.append(text.length() == 0 ? "" : " ").append(key).append(':').append(value));
        return text.toString();
    }

    /** What the workflow language adds to a node's line: a fan-out's progress, why it was skipped, its child run. */
    private static String language(Run run, String id) {
        Run.Node node = run.nodeView(id);
        StringBuilder text = new StringBuilder();
        if (node.isFanOut()) {
            text.append("items ").append(node.progress());
            Map<String, Long> others = new java.util.TreeMap<>();
            node.items().stream().filter(i -> !"SUCCEEDED".equals(i.state()))
                    .forEach(i -> others.merge(i.state().toLowerCase(), 1L, Long::sum));
            others.forEach((state, count) -> text.append(", ").append(count).append(' ').append(state));
            text.append("  ");
        }
        if ("operator".equals(node.skippedBy())) {
            text.append("(skipped by an operator)  ");
        }
        run.child(id).ifPresent(c -> text.append("child ").append(c.runId()).append(' ').append(c.status()).append("  "));
        return text.toString();
    }

    private void printTransition(Transition t) {
        if (root.json()) {
            root.env.out().println(DuctorCli.JSON.valueToTree(t).toString()); // one JSON object per line
            root.env.out().flush();
        } else {
            root.println(String.format("%4d  %s  %-10s %s -> %s  (%s)", t.seq(), t.at(), t.node() == null ? "(run)" : t.node(),
                    t.from() == null ? "-" : t.from(), t.to(), t.cause()));
        }
    }
}
