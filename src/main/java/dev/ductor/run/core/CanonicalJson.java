package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.ductor.config.JsonLimits;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;

/**
 * A byte-stable rendering of JSON (object keys sorted, no whitespace): PostgreSQL's jsonb reorders keys,
 * so a checksum over the stored text would not survive a round trip.
 */
final class CanonicalJson {

    private CanonicalJson() {
    }

    static void write(JsonNode node, StringBuilder out) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            out.append("null");
        } else if (node.isObject()) {
            List<String> names = new ArrayList<>();
            for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
                names.add(it.next());
            }
            Collections.sort(names);
            out.append('{');
            for (int i = 0; i < names.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                quote(names.get(i), out);
                out.append(':');
                write(node.get(names.get(i)), out);
            }
            out.append('}');
        } else if (node.isArray()) {
            out.append('[');
            for (int i = 0; i < node.size(); i++) {
                if (i > 0) {
                    out.append(',');
                }
                write(node.get(i), out);
            }
            out.append(']');
        } else if (node.isTextual()) {
            quote(node.asText(), out);
        } else if (node.isNumber()) {
            number(node.decimalValue(), out);
        } else {
            out.append(node.asText());
        }
    }

    /**
     * Written out in full, as it always was (so fingerprints and checksums stored before still match), when that is at
     * most {@link JsonLimits#MAX_NUMBER_DIGITS} digits, which every number the API reads is. Beyond, in exponent form:
     * {@code 1e999999999} would be a billion digits. Either form is one string per value, and they never meet: only the
     * exponent form has an {@code E}.
     */
    private static void number(BigDecimal value, StringBuilder out) {
        BigDecimal canonical = value.stripTrailingZeros();
        out.append(JsonLimits.fitsWrittenOut(canonical) ? canonical.toPlainString() : canonical.toString());
    }

    static void quote(String text, StringBuilder out) {
        out.append('"');
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        out.append('"');
    }
}
