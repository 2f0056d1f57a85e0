package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.sdk.DuctorClient;
import dev.ductor.sdk.Versioned;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;

@Command(name = "workflow", description = "List, show and apply workflow definitions.")
final class WorkflowCommands implements Runnable {

    @Spec
    CommandSpec spec;

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "list", description = "All workflows of your tenant.")
    int list() {
        List<JsonNode> workflows = root.client("client").listWorkflows();
        if (root.json()) {
            root.printJson(DuctorCli.JSON.valueToTree(workflows));
        } else {
            Table table = new Table("NAME", "REVISION", "VERSION", "NODES", "UPDATED");
            for (JsonNode w : workflows) {
                table.row(w.path("name").asText(), w.path("revision").asText(), w.path("version").asText(),
                        Integer.toString(w.path("nodes").size()), w.path("updatedAt").asText());
            }
            table.print(root.env.out());
        }
        return DuctorCli.OK;
    }

    @Command(name = "get", description = "A workflow's current revision; remembers its version for the next apply.")
    int get(@Parameters(paramLabel = "NAME") String name) {
        Versioned workflow = root.client("client").getWorkflow(name);
        root.seen().put("workflow", name, workflow.version());
        if (root.json()) {
            root.printJson(workflow.body());
        } else {
            root.println("workflow " + name + "  revision " + workflow.body().path("revision").asText() + "  version " + workflow.version());
            root.println(workflow.body().path("nodes").toPrettyString());
        }
        return DuctorCli.OK;
    }

    @Command(name = "apply", description = {"Create or update a workflow from a JSON file ({name?, nodes}; a get's output works too).",
            "An update names the version you last saw (from get or apply), or --if-match: a stale one exits 3 and changes nothing."})
    int apply(@Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE") Path file,
              @Option(names = "--name", paramLabel = "NAME", description = "the workflow's name (default: the file's name field)") String name,
              @Option(names = "--if-match", paramLabel = "VERSION", description = "the version your edit is based on") Long ifMatch) {
        JsonNode definition = root.readJson(null, file, "the definition");
        if (definition == null || !definition.isObject()) {
            throw new DuctorCli.UsageException("the definition must be a JSON object {name?, nodes}");
        }
        String workflowName = name != null ? name : definition.path("name").asText(null);
        if (workflowName == null || workflowName.isBlank()) {
            throw new DuctorCli.UsageException("name the workflow: --name, or a name field in the file");
        }
        ObjectNode body = DuctorCli.JSON.createObjectNode();
        if (definition.has("name")) {
            body.set("name", definition.get("name"));
        }
        body.set("nodes", definition.get("nodes"));
        Long basedOn = ifMatch != null ? ifMatch : root.seen().get("workflow", workflowName);
        DuctorClient client = root.client("admin");
        Versioned saved = client.putWorkflow(workflowName, body, basedOn);
        root.seen().put("workflow", workflowName, saved.version());
        if (root.json()) {
            root.printJson(saved.body());
        } else {
            root.println("workflow " + workflowName + (saved.created() ? " created" : " updated") + ": revision "
                    + saved.body().path("revision").asText() + ", version " + saved.version());
        }
        return DuctorCli.OK;
    }
}
