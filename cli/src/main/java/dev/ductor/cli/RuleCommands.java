package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.ductor.sdk.Versioned;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.Set;

@Command(name = "rule", description = "List, show and apply event rules.")
final class RuleCommands implements Runnable {

    @Spec
    CommandSpec spec;

    /** What a GET shows that a PUT does not take. */
    private static final Set<String> READ_ONLY = Set.of("name", "version", "createdAt", "updatedAt", "updatedBy", "enabled");

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "list", description = "All rules, by name.")
    int list() {
        List<JsonNode> rules = root.client("client").listRules();
        if (root.json()) {
            root.printJson(DuctorCli.JSON.valueToTree(rules));
        } else {
            Table table = new Table("NAME", "ON", "ACTION", "VERSION");
            for (JsonNode r : rules) {
                table.row(r.path("name").asText(), r.path("on").asText(), r.has("start") ? "start " + r.path("start").path("workflow").asText()
                        : "signal", r.path("version").asText());
            }
            table.print(root.env.out());
        }
        return DuctorCli.OK;
    }

    @Command(name = "get", description = "A rule; remembers its version for the next apply.")
    int get(@Parameters(paramLabel = "NAME") String name) {
        Versioned rule = root.client("client").getRule(name);
        root.seen().put("rule", name, rule.version());
        show(rule);
        return DuctorCli.OK;
    }

    @Command(name = "apply", description = "Create or replace a rule from a JSON file {name?, on, match?, start? or signal?}.")
    int apply(@Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE") Path file,
              @Option(names = "--name", paramLabel = "NAME", description = "the rule's name (default: the file's name field)") String name,
              @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        JsonNode rule = root.readJson(null, file, "the rule");
        if (rule == null || !rule.isObject()) {
            throw new DuctorCli.UsageException("the rule must be a JSON object {on, match?, start? or signal?}");
        }
        String ruleName = name != null ? name : rule.path("name").asText(null);
        if (ruleName == null || ruleName.isBlank()) {
            throw new DuctorCli.UsageException("name the rule: --name, or a name field in the file");
        }
        ObjectNode body = ((ObjectNode) rule).deepCopy();
        body.remove(READ_ONLY);
        Long basedOn = ifMatch != null ? ifMatch : root.seen().get("rule", ruleName);
        Versioned saved = root.client("admin").putRule(ruleName, body, basedOn);
        root.seen().put("rule", ruleName, saved.version());
        show(saved);
        return DuctorCli.OK;
    }

    private void show(Versioned rule) {
        if (root.json()) {
            root.printJson(rule.body());
        } else {
            root.println("rule " + rule.body().path("name").asText() + "  version " + rule.version());
            root.println(rule.body().toPrettyString());
        }
    }
}
