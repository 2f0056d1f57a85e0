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

@Command(name = "schedule", description = "List, show, apply, pause and resume cron schedules.")
final class ScheduleCommands implements Runnable {

    @Spec
    CommandSpec spec;

    /** What a GET shows that a PUT does not take. */
    private static final Set<String> READ_ONLY = Set.of("name", "version", "createdAt", "updatedAt", "updatedBy", "nextFireTimes",
            "lastFire");

    @ParentCommand
    DuctorCli root;

    @Override
    public void run() {
        throw DuctorCli.missingSubcommand(spec);
    }

    @Command(name = "list", description = "All schedules, by name, with their next fire time.")
    int list() {
        List<JsonNode> schedules = root.client("client").listSchedules();
        if (root.json()) {
            root.printJson(DuctorCli.JSON.valueToTree(schedules));
        } else {
            Table table = new Table("NAME", "CRON", "TIMEZONE", "WORKFLOW", "PAUSED", "NEXT FIRE", "VERSION");
            for (JsonNode s : schedules) {
                JsonNode next = s.path("nextFireTimes").path(0);
                table.row(s.path("name").asText(), s.path("cron").asText(), s.path("timezone").asText(), s.path("workflow").asText(),
                        s.path("paused").asText(), next.isMissingNode() ? "-" : next.path("local").asText(), s.path("version").asText());
            }
            table.print(root.env.out());
        }
        return DuctorCli.OK;
    }

    @Command(name = "get", description = "A schedule with its next fire times; remembers its version for the next apply, pause or resume.")
    int get(@Parameters(paramLabel = "NAME") String name) {
        Versioned schedule = root.client("client").getSchedule(name);
        root.seen().put("schedule", name, schedule.version());
        show(schedule);
        return DuctorCli.OK;
    }

    @Command(name = "apply", description = "Create or replace a schedule from a JSON file {name?, cron, timezone, workflow, input?,"
            + " overlap?, catchUp?, paused?}.")
    int apply(@Option(names = {"-f", "--file"}, required = true, paramLabel = "FILE") Path file,
              @Option(names = "--name", paramLabel = "NAME", description = "the schedule's name (default: the file's name field)") String name,
              @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        JsonNode schedule = root.readJson(null, file, "the schedule");
        if (schedule == null || !schedule.isObject()) {
            throw new DuctorCli.UsageException("the schedule must be a JSON object {cron, timezone, workflow, input?, overlap?,"
                    + " catchUp?, paused?}");
        }
        String scheduleName = name != null ? name : schedule.path("name").asText(null);
        if (scheduleName == null || scheduleName.isBlank()) {
            throw new DuctorCli.UsageException("name the schedule: --name, or a name field in the file");
        }
        ObjectNode body = ((ObjectNode) schedule).deepCopy();
        body.remove(READ_ONLY);
        return put(scheduleName, body, ifMatch != null ? ifMatch : root.seen().get("schedule", scheduleName));
    }

    @Command(name = "pause", description = "Pause a schedule (it fires nothing), based on the version you last saw (or --if-match).")
    int pause(@Parameters(paramLabel = "NAME") String name,
              @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        return setPaused(name, true, ifMatch);
    }

    @Command(name = "resume", description = "Resume a schedule (the time it was paused is not caught up), based on the version you"
            + " last saw (or --if-match).")
    int resume(@Parameters(paramLabel = "NAME") String name,
               @Option(names = "--if-match", paramLabel = "VERSION") Long ifMatch) {
        return setPaused(name, false, ifMatch);
    }

    /**
     * The schedule as last read, with only {@code paused} changed, sent with the version last seen: if it changed
     * since, the server answers 409 (exit 3) and nothing is saved.
     */
    private int setPaused(String name, boolean paused, Long ifMatch) {
        Long basedOn = ifMatch != null ? ifMatch : root.seen().get("schedule", name);
        Versioned current = root.client("client").getSchedule(name);
        if (basedOn == null) {
            basedOn = current.version();
        }
        ObjectNode body = ((ObjectNode) current.body()).deepCopy();
        body.remove(READ_ONLY);
        body.put("paused", paused);
        return put(name, body, basedOn);
    }

    private int put(String name, JsonNode body, Long basedOn) {
        Versioned saved = root.client("admin").putSchedule(name, body, basedOn);
        root.seen().put("schedule", name, saved.version());
        show(saved);
        return DuctorCli.OK;
    }

    private void show(Versioned schedule) {
        if (root.json()) {
            root.printJson(schedule.body());
        } else {
            JsonNode s = schedule.body();
            root.println("schedule " + s.path("name").asText() + "  " + s.path("cron").asText() + " " + s.path("timezone").asText()
                    + "  workflow " + s.path("workflow").asText() + "  paused " + s.path("paused").asText() + "  version "
                    + schedule.version());
            for (JsonNode next : s.path("nextFireTimes")) {
                root.println("  next " + next.path("local").asText() + "  (" + next.path("utc").asText() + ")");
            }
            JsonNode last = s.path("lastFire");
            if (!last.isMissingNode()) {
                root.println("  last " + last.path("at").asText("-") + "  run " + last.path("runId").asText("-")
                        + (last.hasNonNull("error") ? "  error: " + last.path("error").asText() : ""));
            }
        }
    }
}
