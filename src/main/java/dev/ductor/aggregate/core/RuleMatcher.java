package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Iterator;
import java.util.Map;

/**
 * Whether an event satisfies a rule. Deliberately small and exact:
 * <ul>
 *   <li>the rule must be enabled and its {@code on} must equal the event's type (case-sensitive);</li>
 *   <li>every entry {@code "<dotted.path>": <expected>} of {@code match} must hold: the payload has a value
 *       at that path ({@link RulePath}) and it equals {@code expected} as JSON. Strings, booleans and null
 *       compare exactly; numbers by value ({@code 1} equals {@code 1.0}); objects and arrays deeply, with
 *       the same rules (field order does not matter, array order does);</li>
 *   <li>a missing path never matches, not even {@code null}: {@code "x": null} asks for an explicit null;</li>
 *   <li>an empty {@code match} matches every event of the type.</li>
 * </ul>
 * There are no operators (no ranges, no regexes, no "in"): one rule per value, or a workflow that decides.
 */
public final class RuleMatcher {

    private RuleMatcher() {
    }

    public static boolean matches(Rule rule, String eventType, JsonNode payload) {
        if (!rule.enabled() || !rule.on().equals(eventType)) {
            return false;
        }
        for (Map.Entry<String, JsonNode> condition : rule.match().entrySet()) {
            JsonNode actual = payload == null ? null : RulePath.resolve(payload, condition.getKey());
            if (actual == null || actual.isMissingNode() || !equal(actual, condition.getValue())) {
                return false;
            }
        }
        return true;
    }

    /** JSON equality with numbers compared by value. */
    public static boolean equal(JsonNode a, JsonNode b) {
        if (a.isNumber() && b.isNumber()) {
            return a.decimalValue().compareTo(b.decimalValue()) == 0;
        }
        if (a.isObject() && b.isObject()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (Iterator<Map.Entry<String, JsonNode>> it = a.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> field = it.next();
                JsonNode other = b.get(field.getKey());
                if (other == null || !equal(field.getValue(), other)) {
                    return false;
                }
            }
            return true;
        }
        if (a.isArray() && b.isArray()) {
            if (a.size() != b.size()) {
                return false;
            }
            for (int i = 0; i < a.size(); i++) {
                if (!equal(a.get(i), b.get(i))) {
                    return false;
                }
            }
            return true;
        }
        return a.equals(b);
    }
}
