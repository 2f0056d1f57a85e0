package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.JsonLimits;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Turns a submitted rule body {@code {on, match?, start?, signal?, enabled?}} into a {@link Rule}, or refuses
 * it with every violation found. Pure. Unknown fields are refused, not ignored (a misspelt {@code mach} must
 * not silently match everything); the read-only fields a GET returns ({@code version}, {@code createdAt},
 * {@code updatedAt}, {@code updatedBy}, and {@code name} if it is the rule's own) may be sent back unchanged.
 */
public final class RuleValidator {

    /** Rule names appear in URLs and in derived idempotency keys ({@code event:<key>:<rule>}): no colon. */
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    private static final Pattern WORKFLOW = Pattern.compile("[A-Za-z0-9_.-]{1,100}");
    public static final String DEFAULT_TIER = "standard";
    public static final int MAX_TEXT = 200;
    public static final int MAX_CONDITIONS = 50;
    public static final int MAX_TEMPLATE_CHARS = 64 * 1024;

    /** The fields a rule, its start and its signal may have (the API's schema lists the same: BodySchemasTest). */
    public static final Set<String> FIELDS = Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("on", "match", "start", "signal", "enabled")));
    private static final Set<String> READ_ONLY = Set.of("name", "version", "createdAt", "updatedAt", "updatedBy");
    public static final Set<String> START_FIELDS = Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("workflow", "input", "tier")));
    public static final Set<String> SIGNAL_FIELDS = Collections.unmodifiableSortedSet(new TreeSet<>(Set.of("name", "payload")));

    private RuleValidator() {
    }

    /**
     * Why {@code json} cannot be stored in PostgreSQL as it is, or null when it can: {@code text} and {@code jsonb}
     * refuse the NUL character anywhere (in values and in field names), and a number that overflowed to infinity
     * would not come back as the number that was sent.
     */
    public static String unstorable(JsonNode json) {
        if (json == null) {
            return null;
        }
        if (json.isTextual()) {
            return json.asText().indexOf('\0') >= 0 ? "contains the NUL character \\u0000, which cannot be stored" : null;
        }
        if ((json.isDouble() || json.isFloat()) && !Double.isFinite(json.doubleValue())) {
            return "contains a number too large to store";
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> field = it.next();
            if (field.getKey().indexOf('\0') >= 0) {
                return "contains the NUL character \\u0000 in a field name, which cannot be stored";
            }
            String problem = unstorable(field.getValue());
            if (problem != null) {
                return problem;
            }
        }
        if (json.isArray()) {
            for (JsonNode element : json) {
                String problem = unstorable(element);
                if (problem != null) {
                    return problem;
                }
            }
        }
        return null;
    }

    public static boolean validName(String name) {
        return name != null && NAME.matcher(name).matches();
    }

    /** {@code tiers}: the configured tiers a start may name. */
    public static Rule parse(List<String> tiers, String name, JsonNode body) {
        List<RuleViolation> violations = new ArrayList<>();
        if (body == null || !body.isObject()) {
            throw new RuleViolationException(List.of(new RuleViolation(null,
                    "the body must be a JSON object {on, match?, start?, signal?, enabled?}")));
        }
        String unstorable = unstorable(body);
        if (unstorable != null) {
            throw new RuleViolationException(List.of(new RuleViolation(null, "the body " + unstorable)));
        }
        for (Iterator<String> names = body.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (field.equals("name")) {
                if (!(body.get("name").isTextual() && body.get("name").asText().equals(name))) {
                    violations.add(new RuleViolation("name", "name must equal the name in the path ('" + name + "')"));
                }
            } else if (!FIELDS.contains(field) && !READ_ONLY.contains(field)) {
                violations.add(new RuleViolation(field, "unknown field (allowed: " + String.join(", ", FIELDS) + ")"));
            }
        }
        String on = text(body.get("on"), "on", true, violations);
        Map<String, JsonNode> match = match(body.get("match"), violations);
        JsonNode startJson = present(body.get("start"));
        JsonNode signalJson = present(body.get("signal"));
        if ((startJson == null) == (signalJson == null)) {
            violations.add(new RuleViolation(null, "a rule needs exactly one action: start or signal"));
        }
        Rule.Start start = startJson == null ? null : start(startJson, tiers, violations);
        Rule.Signal signal = signalJson == null ? null : signal(signalJson, violations);
        boolean enabled = true;
        JsonNode enabledJson = present(body.get("enabled"));
        if (enabledJson != null) {
            if (!enabledJson.isBoolean()) {
                violations.add(new RuleViolation("enabled", "enabled must be true or false"));
            } else {
                enabled = enabledJson.asBoolean();
            }
        }
        if (!violations.isEmpty()) {
            throw new RuleViolationException(violations);
        }
        return new Rule(on, match, start, signal, enabled);
    }

    private static Map<String, JsonNode> match(JsonNode json, List<RuleViolation> violations) {
        Map<String, JsonNode> match = new LinkedHashMap<>();
        if (present(json) == null) {
            return match;
        }
        if (!json.isObject()) {
            violations.add(new RuleViolation("match", "match must be an object {\"dotted.path\": expected value}"));
            return match;
        }
        if (json.size() > MAX_CONDITIONS) {
            violations.add(new RuleViolation("match", "at most " + MAX_CONDITIONS + " conditions"));
            return match;
        }
        for (Iterator<Map.Entry<String, JsonNode>> it = json.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> condition = it.next();
            String problem = RulePath.problem(condition.getKey());
            if (problem != null) {
                violations.add(new RuleViolation("match", problem));
            } else {
                match.put(condition.getKey(), condition.getValue().deepCopy());
            }
        }
        return match;
    }

    private static Rule.Start start(JsonNode json, List<String> tiers, List<RuleViolation> violations) {
        if (!json.isObject()) {
            violations.add(new RuleViolation("start", "start must be an object {workflow, input?, tier?}"));
            return null;
        }
        unknown(json, START_FIELDS, "start", violations);
        String workflow = text(json.get("workflow"), "start.workflow", true, violations);
        if (workflow != null && !WORKFLOW.matcher(workflow).matches()) {
            violations.add(new RuleViolation("start.workflow", "a workflow name is 1-100 characters of A-Z a-z 0-9 _ . -"));
        }
        JsonNode input = template(json.get("input"), "start.input", violations);
        String tier = DEFAULT_TIER;
        JsonNode tierJson = present(json.get("tier"));
        if (tierJson != null) {
            if (!tierJson.isTextual() || !tiers.contains(tierJson.asText())) {
                violations.add(new RuleViolation("start.tier", "tier must be one of " + String.join(", ", tiers)));
            } else {
                tier = tierJson.asText();
            }
        }
        return new Rule.Start(workflow, input, tier);
    }

    private static Rule.Signal signal(JsonNode json, List<RuleViolation> violations) {
        if (!json.isObject()) {
            violations.add(new RuleViolation("signal", "signal must be an object {name, payload?}"));
            return null;
        }
        unknown(json, SIGNAL_FIELDS, "signal", violations);
        String name = text(json.get("name"), "signal.name", true, violations);
        return new Rule.Signal(name, template(json.get("payload"), "signal.payload", violations));
    }

    private static JsonNode template(JsonNode json, String field, List<RuleViolation> violations) {
        if (json == null) {
            return RuleTemplate.wholePayload();
        }
        if (json.toString().length() > MAX_TEMPLATE_CHARS) {
            violations.add(new RuleViolation(field, field + " is larger than " + MAX_TEMPLATE_CHARS / 1024 + " KiB"));
            return json;
        }
        if (!JsonLimits.nestsAtMost(json, JsonLimits.MAX_PAYLOAD_DEPTH)) { // as a payload: it becomes a run's input
            violations.add(new RuleViolation(field, field + " nests deeper than " + JsonLimits.MAX_PAYLOAD_DEPTH + " levels"));
            return json;
        }
        RuleTemplate.validate(json, field, violations);
        return json.deepCopy();
    }

    private static String text(JsonNode json, String field, boolean required, List<RuleViolation> violations) {
        if (present(json) == null) {
            if (required) {
                violations.add(new RuleViolation(field, field + " is required"));
            }
            return null;
        }
        if (!json.isTextual() || json.asText().isBlank() || json.asText().length() > MAX_TEXT) {
            violations.add(new RuleViolation(field, field + " must be a non-blank string of at most " + MAX_TEXT + " characters"));
            return null;
        }
        return json.asText();
    }

    private static void unknown(JsonNode json, Set<String> allowed, String prefix, List<RuleViolation> violations) {
        for (Iterator<String> names = json.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!allowed.contains(field)) {
                violations.add(new RuleViolation(prefix + "." + field, "unknown field (allowed: " + String.join(", ", allowed) + ")"));
            }
        }
    }

    private static JsonNode present(JsonNode json) {
        return json == null || json.isNull() || json.isMissingNode() ? null : json;
    }
}
