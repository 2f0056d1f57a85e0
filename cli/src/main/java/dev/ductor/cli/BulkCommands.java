package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.sdk.DuctorClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;

import java.util.List;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

@Command(name = "bulk", description = "Cancel, reset or retry the dead letters of every run a filter matches, run by the server.")
final class BulkCommands implements Runnable {

    @Spec
    CommandSpec spec;

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "start", description = "Start a bulk ACTION (cancel, reset, retry-dead-letters) on the runs the filter matches;"
            + " --dry-run prints how many match and some of them, and changes nothing.")
    int start(@Parameters(paramLabel = "ACTION", description = "cancel, reset or retry-dead-letters") String action,
              @Option(names = "--workflow", paramLabel = "NAME") String workflow,
              @Option(names = "--status", paramLabel = "STATUS", description = "RUNNING, SUCCEEDED, FAILED or CANCELLED") String status,
              @Option(names = "--revision", paramLabel = "N") Integer revision,
              @Option(names = "--created-before", paramLabel = "INSTANT") String createdBefore,
              @Option(names = "--created-after", paramLabel = "INSTANT") String createdAfter,
              @Option(names = "--tag", paramLabel = "KEY:VALUE", description = "runs carrying this tag; repeat for runs carrying all")
              List<String> tags,
              @Option(names = "--to-current-revision", description = "a reset pins the runs to the workflow's current revision") boolean toCurrent,
              @Option(names = "--dry-run", description = "only count the runs that match") boolean dryRun,
              @Option(names = "--wait", description = "wait until the job has gone through every run") boolean wait) throws InterruptedException {
        ObjectNode body = DuctorCli.JSON.createObjectNode().put("action", action);
        ObjectNode filter = body.putObject("filter");
        if (workflow != null) {
            filter.put("workflow", workflow);
        }
        if (status != null) {
            filter.put("status", status);
        }
        if (revision != null) {
            filter.put("revision", revision);
        }
        if (createdBefore != null) {
            filter.put("createdBefore", createdBefore);
        }
        if (createdAfter != null) {
            filter.put("createdAfter", createdAfter);
        }
        if (tags != null && !tags.isEmpty()) {
            tags.forEach(filter.putArray("tag")::add);
        }
        if (toCurrent) {
            body.put("toRevision", "current");
        }
        if (dryRun) {
            body.put("dryRun", true);
        }
        DuctorClient client = root.client("operator");
        JsonNode answer = client.bulkAction(body);
        if (dryRun) {
            if (root.json()) {
                root.printJson(answer);
            } else {
                root.println(answer.path("matched").asInt() + " runs match; for example:");
                answer.path("sample").forEach(id -> root.println("  " + id.asText()));
            }
            return DuctorCli.OK;
        }
        while (wait && "RUNNING".equals(answer.path("status").asText())) {
            Thread.sleep(500);
            answer = client.getBulkAction(answer.path("id").asText());
        }
        show(answer);
        return DuctorCli.OK;
    }

    @Command(name = "get", description = "A bulk action's progress: matched, done, skipped (changed meanwhile), failed.")
    int get(@Parameters(paramLabel = "ID") String id) {
        show(root.client("operator").getBulkAction(id));
        return DuctorCli.OK;
    }

    @Command(name = "cancel", description = "Stop a bulk action: runs not yet taken are left as they are.")
    int cancel(@Parameters(paramLabel = "ID") String id) {
        show(root.client("operator").cancelBulkAction(id));
        return DuctorCli.OK;
    }

    private void show(JsonNode job) {
        if (root.json()) {
            root.printJson(job);
            return;
        }
        root.println("bulk " + job.path("action").asText() + " " + job.path("id").asText() + "  " + job.path("status").asText()
                + "  matched " + job.path("matched").asInt() + ", done " + job.path("done").asInt() + ", skipped "
                + job.path("skipped").asInt() + " (changed meanwhile), failed " + job.path("failed").asInt());
    }
}
