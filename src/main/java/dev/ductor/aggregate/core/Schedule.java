package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.time.ZoneId;
import java.util.Locale;

/**
 * A schedule, normalised: start a run of {@link #workflow} with {@link #input} at each fire time of {@link #cron} (Quartz
 * form, seconds first) in {@link #timezone}. {@link #overlap} says what to do while the schedule's previous run is still
 * running, {@link #catchUp} what to do with fire times missed while every pod was down. Built by
 * {@link ScheduleValidator}; read back from stored events by {@link #fromJson}.
 */
public record Schedule(String cron, String timezone, String workflow, JsonNode input, Overlap overlap, FirePlan.CatchUp catchUp,
                       boolean paused) {

    /** While the previous run is RUNNING: skip this fire, start anyway, or cancel the previous run and start. */
    public enum Overlap {
        SKIP("skip"), ALLOW("allow"), CANCEL_PREVIOUS("cancelPrevious");

        public final String wire;

        Overlap(String wire) {
            this.wire = wire;
        }

        public static Overlap of(String wire) {
            for (Overlap o : values()) {
                if (o.wire.equals(wire)) {
                    return o;
                }
            }
            return null;
        }
    }

    public static String wire(FirePlan.CatchUp catchUp) {
        return catchUp.name().toLowerCase(Locale.ROOT);
    }

    public static FirePlan.CatchUp catchUpOf(String wire) {
        for (FirePlan.CatchUp c : FirePlan.CatchUp.values()) {
            if (wire(c).equals(wire)) {
                return c;
            }
        }
        return null;
    }

    public CronSchedule cronSchedule() {
        return CronSchedule.parse(cron, ZoneId.of(timezone));
    }

    public Schedule withPaused(boolean paused) {
        return new Schedule(cron, timezone, workflow, input, overlap, catchUp, paused);
    }

    /** The stored form, also what GET shows of it: {@code {cron, timezone, workflow, input, overlap, catchUp, paused}}. */
    public ObjectNode toJson() {
        ObjectNode json = JsonNodeFactory.instance.objectNode();
        json.put("cron", cron);
        json.put("timezone", timezone);
        json.put("workflow", workflow);
        json.set("input", input.deepCopy());
        json.put("overlap", overlap.wire);
        json.put("catchUp", wire(catchUp));
        json.put("paused", paused);
        return json;
    }

    /** Reads the stored form back; stored schedules were valid when accepted, so this does not re-validate. */
    public static Schedule fromJson(JsonNode json) {
        return new Schedule(json.path("cron").asText(), json.path("timezone").asText(), json.path("workflow").asText(),
                json.has("input") ? json.get("input").deepCopy() : JsonNodeFactory.instance.objectNode(),
                Overlap.of(json.path("overlap").asText()), catchUpOf(json.path("catchUp").asText()),
                json.path("paused").asBoolean(false));
    }
}
