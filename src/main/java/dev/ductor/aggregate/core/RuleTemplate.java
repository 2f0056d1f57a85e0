package dev.ductor.aggregate.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Fills a rule's template ({@code start.input}, {@code signal.payload}) from an event. A template is any
 * JSON; it is copied as it is, except that a string value that is exactly one of these references is
 * replaced by a value of the event:
 * <ul>
 *   <li>{@code "$"}: the whole payload (null when the event has none);</li>
 *   <li>{@code "$.a.b.0"}: the payload's value at that {@link RulePath} (null when it leads nowhere);</li>
 *   <li>{@code "$key"}: the event's key (null when it has none);</li>
 *   <li>{@code "$type"}: the event's type;</li>
 *   <li>{@code "$$..."}: escape, the literal string with one {@code $} removed ({@code "$$5"} gives {@code "$5"}).</li>
 * </ul>
 * Any other string starting with {@code $} is refused when the rule is saved. References are whole string
 * values only: there is no interpolation inside a longer string, and object keys are never replaced.
 * The replacement keeps its JSON type: {@code "$.amount"} becomes the number, not a string.
 */
public final class RuleTemplate {

    public static final String WHOLE_PAYLOAD = "$";
    public static final String EVENT_KEY = "$key";
    public static final String EVENT_TYPE = "$type";
    public static final String PATH_PREFIX = "$.";
    public static final String ESCAPE = "$$";

    private RuleTemplate() {
    }

    /** The default template: the event's whole payload. */
    public static JsonNode wholePayload() {
        return TextNode.valueOf(WHOLE_PAYLOAD);
    }

    /** Adds a violation for every string in {@code template} that starts with {@code $} but is no reference. */
    public static void validate(JsonNode template, String field, List<RuleViolation> violations) {
        if (template.isTextual()) {
            String problem = referenceProblem(template.asText());
            if (problem != null) {
                violations.add(new RuleViolation(field, problem));
            }
        } else if (template.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = template.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                validate(entry.getValue(), field + "." + entry.getKey(), violations);
            }
        } else if (template.isArray()) {
            for (int i = 0; i < template.size(); i++) {
                validate(template.get(i), field + "[" + i + "]", violations);
            }
        }
    }

    private static String referenceProblem(String text) {
        if (!text.startsWith("$") || text.equals(WHOLE_PAYLOAD) || text.equals(EVENT_KEY) || text.equals(EVENT_TYPE)
                || text.startsWith(ESCAPE)) {
            return null;
        }
        if (text.startsWith(PATH_PREFIX)) {
            return RulePath.problem(text.substring(PATH_PREFIX.length()));
        }
        return "'" + text + "' is not a reference: use \"$\", \"$.path.in.payload\", \"$key\" or \"$type\","
                + " or write \"$" + text + "\" for the literal string";
    }

    /** The template with every reference replaced by the event's value; the template itself is not changed. */
    public static JsonNode render(JsonNode template, String eventType, String eventKey, JsonNode payload) {
        JsonNodeFactory f = JsonNodeFactory.instance;
        if (template.isTextual()) {
            String text = template.asText();
            if (!text.startsWith("$")) {
                return template;
            }
            if (text.startsWith(ESCAPE)) {
                return TextNode.valueOf(text.substring(1));
            }
            if (text.equals(WHOLE_PAYLOAD)) {
                return payload == null ? f.nullNode() : payload.deepCopy();
            }
            if (text.equals(EVENT_KEY)) {
                return eventKey == null ? f.nullNode() : TextNode.valueOf(eventKey);
            }
            if (text.equals(EVENT_TYPE)) {
                return TextNode.valueOf(eventType);
            }
            if (text.startsWith(PATH_PREFIX) && RulePath.problem(text.substring(PATH_PREFIX.length())) == null) {
                JsonNode value = payload == null ? null : RulePath.resolve(payload, text.substring(PATH_PREFIX.length()));
                return value == null || value.isMissingNode() ? f.nullNode() : value.deepCopy();
            }
            return template; // refused on save; a stored one is taken literally
        }
        if (template.isObject()) {
            ObjectNode out = f.objectNode();
            for (Iterator<Map.Entry<String, JsonNode>> it = template.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> entry = it.next();
                out.set(entry.getKey(), render(entry.getValue(), eventType, eventKey, payload));
            }
            return out;
        }
        if (template.isArray()) {
            ArrayNode out = f.arrayNode();
            for (JsonNode element : template) {
                out.add(render(element, eventType, eventKey, payload));
            }
            return out;
        }
        return template.deepCopy();
    }
}
