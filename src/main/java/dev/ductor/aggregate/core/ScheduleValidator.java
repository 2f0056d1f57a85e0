package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import dev.ductor.config.JsonLimits;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Turns a submitted schedule body {@code {cron, timezone, workflow, input?, overlap?, catchUp?, paused?}} into a
 * {@link Schedule}, or refuses it with every violation found. Pure; whether the workflow exists is the service's to
 * check. Unknown fields are refused; the read-only fields a GET returns may be sent back.
 */
public final class ScheduleValidator {

    private static final Pattern WORKFLOW = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    public static final int MAX_CRON = 200;
    public static final int MAX_INPUT_CHARS = 256 * 1024;

    /** The fields a schedule may have (the API's schema lists the same: BodySchemasTest). */
    public static final Set<String> FIELDS = Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("cron", "timezone", "workflow",
            "input", "overlap", "catchUp", "paused")));
    private static final Set<String> READ_ONLY = Set.of("name", "version", "createdAt", "updatedAt", "updatedBy", "nextFireTimes",
            "lastFire");

    private ScheduleValidator() {
    }

    /** {@code now}: a cron that never fires after it is refused. */
    public static Schedule parse(String name, JsonNode body, Instant now) {
        if (body == null || !body.isObject()) {
            throw new ScheduleViolationException(List.of(new ScheduleViolation(null,
                    "the body must be a JSON object {cron, timezone, workflow, input?, overlap?, catchUp?, paused?}")));
        }
        List<ScheduleViolation> violations = new ArrayList<>();
        String unstorable = RuleValidator.unstorable(body);
        if (unstorable != null) {
            throw new ScheduleViolationException(List.of(new ScheduleViolation(null, "the body " + unstorable)));
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (field.equals("name")) {
                if (!(body.get("name").isTextual() && body.get("name").asText().equals(name))) {
                    violations.add(new ScheduleViolation("name", "name must equal the name in the path ('" + name + "')"));
                }
            } else if (!FIELDS.contains(field) && !READ_ONLY.contains(field)) {
                violations.add(new ScheduleViolation(field, "unknown field (allowed: " + String.join(", ", FIELDS) + ")"));
            }
        }
        String timezone = text(body.get("timezone"), "timezone", violations);
        ZoneId zone = null;
        if (timezone != null) {
            try {
                zone = ZoneId.of(timezone);
            } catch (DateTimeException e) {
                violations.add(new ScheduleViolation("timezone", "unknown time zone '" + timezone
                        + "': use an IANA zone such as Europe/Amsterdam, or UTC"));
            }
        }
        String cron = text(body.get("cron"), "cron", violations);
        if (cron != null && zone != null) {
            try {
                CronSchedule schedule = CronSchedule.parse(cron, zone);
                if (schedule.next(now).isEmpty()) {
                    violations.add(new ScheduleViolation("cron", "'" + cron + "' never fires again"));
                }
            } catch (IllegalArgumentException e) {
                violations.add(new ScheduleViolation("cron", "'" + cron + "' is not a Quartz cron expression (seconds first,"
                        + " e.g. '0 */5 * * * ?'): " + e.getMessage()));
            }
        }
        String workflow = text(body.get("workflow"), "workflow", violations);
        if (workflow != null && !WORKFLOW.matcher(workflow).matches()) {
            violations.add(new ScheduleViolation("workflow", "a workflow name is 1-100 characters of A-Z a-z 0-9 _ . -"));
        }
        JsonNode input = present(body.get("input"));
        if (input == null) {
            input = JsonNodeFactory.instance.objectNode();
        } else if (input.toString().length() > MAX_INPUT_CHARS) {
            violations.add(new ScheduleViolation("input", "input is larger than " + MAX_INPUT_CHARS / 1024 + " KiB"));
        } else if (!JsonLimits.nestsAtMost(input, JsonLimits.MAX_PAYLOAD_DEPTH)) {
            violations.add(new ScheduleViolation("input", "input nests deeper than " + JsonLimits.MAX_PAYLOAD_DEPTH + " levels"));
        }
        Schedule.Overlap overlap = Schedule.Overlap.SKIP;
        JsonNode overlapJson = present(body.get("overlap"));
        if (overlapJson != null) {
            overlap = overlapJson.isTextual() ? Schedule.Overlap.of(overlapJson.asText()) : null;
            if (overlap == null) {
                violations.add(new ScheduleViolation("overlap", "overlap must be one of "
                        + Arrays.stream(Schedule.Overlap.values()).map(o -> o.wire).collect(Collectors.joining(", "))));
            }
        }
        FirePlan.CatchUp catchUp = FirePlan.CatchUp.NONE;
        JsonNode catchUpJson = present(body.get("catchUp"));
        if (catchUpJson != null) {
            catchUp = catchUpJson.isTextual() ? Schedule.catchUpOf(catchUpJson.asText()) : null;
            if (catchUp == null) {
                violations.add(new ScheduleViolation("catchUp", "catchUp must be one of none, last, all"));
            }
        }
        boolean paused = false;
        JsonNode pausedJson = present(body.get("paused"));
        if (pausedJson != null) {
            if (!pausedJson.isBoolean()) {
                violations.add(new ScheduleViolation("paused", "paused must be true or false"));
            } else {
                paused = pausedJson.asBoolean();
            }
        }
        if (!violations.isEmpty()) {
            throw new ScheduleViolationException(violations);
        }
        return new Schedule(cron, zone.getId(), workflow, input.deepCopy(), overlap, catchUp, paused);
    }

    private static String text(JsonNode json, String field, List<ScheduleViolation> violations) {
        if (present(json) == null) {
            violations.add(new ScheduleViolation(field, field + " is required"));
            return null;
        }
        if (!json.isTextual() || json.asText().isBlank() || json.asText().length() > MAX_CRON) {
            violations.add(new ScheduleViolation(field, field + " must be a non-blank string of at most " + MAX_CRON + " characters"));
            return null;
        }
        return json.asText();
    }

    private static JsonNode present(JsonNode json) {
        return json == null || json.isNull() || json.isMissingNode() ? null : json;
    }
}
