package dev.ductor.cli;

import com.fasterxml.jackson.databind.JsonNode;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.UUID;

@Command(name = "event", description = "Send events to your tenant's rules.")
final class EventCommands implements Runnable {

    @Spec
    CommandSpec spec;

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "send", description = "Send an event of TYPE; prints the runs it started or signalled.")
    int send(@Parameters(paramLabel = "TYPE") String type,
             @Option(names = "--key", paramLabel = "KEY", description = "the event's key (rules may use it)") String key,
             @Option(names = "--payload", paramLabel = "JSON") String payload,
             @Option(names = "--payload-file", paramLabel = "FILE") Path payloadFile,
             @Option(names = "--idempotency-key", paramLabel = "KEY", description = "default: a new random key") String idempotencyKey) {
        String sent = idempotencyKey != null ? idempotencyKey : UUID.randomUUID().toString();
        JsonNode receipt = root.client("client").sendEvent(type, key, root.readJson(payload, payloadFile, "the payload"), sent);
        if (root.json()) {
            root.printJson(receipt);
        } else {
            root.println("event " + type + (receipt.path("duplicate").asBoolean() ? " (a repeat: nothing done again)" : " accepted")
                    + ", idempotency key " + sent);
            for (JsonNode started : receipt.path("started")) {
                root.println("  started run " + started.path("runId").asText() + " of " + started.path("workflow").asText()
                        + " (rule " + started.path("rule").asText() + ")");
            }
            for (JsonNode signalled : receipt.path("signalled")) {
                root.println("  signalled run " + signalled.path("runId").asText() + " (rule " + signalled.path("rule").asText() + ")");
            }
        }
        return DuctorCli.OK;
    }
}
