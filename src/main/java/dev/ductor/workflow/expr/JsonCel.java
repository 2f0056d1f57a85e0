package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.common.primitives.UnsignedLong;
import dev.cel.common.types.CelType;
import dev.cel.common.values.CelByteString;
import dev.cel.common.values.NullValue;

import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.util.AbstractList;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.Base64;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.RandomAccess;
import java.util.Set;

/**
 * JSON to CEL values and back. JSON objects and arrays are handed to CEL as read-only views that convert a member
 * only when the expression reads it, so an expression that reads one field of a large output pays for that field
 * only; a view that comes back as a result is its JSON node again, not a copy.
 *
 * <p>To CEL: object → {@code Map<String, Object>}, array → {@code List}, integer (fitting a long) → {@code Long},
 * other number → {@code Double}, string, boolean, null → {@link NullValue}. Back to JSON: integers as integer nodes
 * (an {@code IntNode} when the value fits an int, else a {@code LongNode}: the kind Jackson reads, so that a result
 * equals the same document parsed), doubles as double nodes (an integral
 * double stays a double), unsigned integers as numbers, timestamps and durations as ISO-8601 text, bytes as base64
 * text, maps (keys as text) and lists recursively.
 */
final class JsonCel {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

    private JsonCel() {
    }

    /** A value CEL produced that JSON cannot hold, or a result over its size bound. */
    static final class ConversionException extends RuntimeException {
        ConversionException(String message) {
            super(message, null, false, false);
        }
    }

    // ---- JSON to CEL ---------------------------------------------------------------------------------------------

    static Object toCel(JsonNode node) {
        if (node == null || node.isNull() || node.isMissingNode()) {
            return NullValue.NULL_VALUE;
        }
        switch (node.getNodeType()) {
            case OBJECT:
                return new ObjectView((ObjectNode) node);
            case ARRAY:
                return new ArrayView((ArrayNode) node);
            case STRING:
                return node.textValue();
            case BOOLEAN:
                return node.booleanValue();
            case NUMBER:
                if (node.isIntegralNumber() && node.canConvertToLong()) {
                    return node.longValue();
                }
                return node.doubleValue();
            case BINARY:
                try {
                    return CelByteString.of(node.binaryValue());
                } catch (java.io.IOException e) {
                    return node.asText();
                }
            default:
                return node.asText();
        }
    }

    /** A JSON object as CEL sees it: a map from field name to CEL value, converted on read. */
    static final class ObjectView extends AbstractMap<String, Object> {
        final ObjectNode node;

        ObjectView(ObjectNode node) {
            this.node = node;
        }

        @Override
        public Object get(Object key) {
            if (!(key instanceof String name)) {
                return null;
            }
            JsonNode value = node.get(name);
            return value == null ? null : toCel(value);
        }

        @Override
        public boolean containsKey(Object key) {
            return key instanceof String name && node.has(name);
        }

        @Override
        public int size() {
            return node.size();
        }

        @Override
        public boolean isEmpty() {
            return node.isEmpty();
        }

        @Override
        public Set<Entry<String, Object>> entrySet() {
            return new AbstractSet<>() {
                @Override
                public Iterator<Entry<String, Object>> iterator() {
                    Iterator<Map.Entry<String, JsonNode>> fields = node.fields();
                    return new Iterator<>() {
                        @Override
                        public boolean hasNext() {
                            return fields.hasNext();
                        }

                        @Override
                        public Entry<String, Object> next() {
                            Map.Entry<String, JsonNode> field = fields.next();
                            return new SimpleImmutableEntry<>(field.getKey(), toCel(field.getValue()));
                        }
                    };
                }

                @Override
                public int size() {
                    return node.size();
                }
            };
        }
    }

    /** A JSON array as CEL sees it: a list of CEL values, converted on read. */
    static final class ArrayView extends AbstractList<Object> implements RandomAccess {
        final ArrayNode node;

        ArrayView(ArrayNode node) {
            this.node = node;
        }

        @Override
        public Object get(int index) {
            if (index < 0 || index >= node.size()) {
                throw new IndexOutOfBoundsException("index " + index + " out of a list of " + node.size());
            }
            return toCel(node.get(index));
        }

        @Override
        public int size() {
            return node.size();
        }
    }

    // ---- CEL to JSON ---------------------------------------------------------------------------------------------

    /** Counts the compact JSON text a conversion produces, and refuses to go past its limit. */
    static final class Budget {
        private final long limit;
        private long used;

        Budget(long limit) {
            this.limit = limit;
        }

        void spend(long chars) {
            used += chars;
            if (used > limit) {
                throw new ConversionException("the result is larger than the limit of " + limit + " characters of JSON");
            }
        }

        long used() {
            return used;
        }
    }

    static JsonNode toJson(Object value, Budget budget) {
        if (value == null || value instanceof NullValue || value instanceof com.google.protobuf.NullValue) {
            budget.spend(4);
            return NullNode.getInstance();
        }
        if (value instanceof ObjectView view) {
            measure(view.node, budget);
            return view.node;
        }
        if (value instanceof ArrayView view) {
            measure(view.node, budget);
            return view.node;
        }
        if (value instanceof JsonNode node) {
            measure(node, budget);
            return node;
        }
        if (value instanceof String text) {
            budget.spend(text.length() + 2L);
            return JSON.textNode(text);
        }
        if (value instanceof Boolean bool) {
            budget.spend(5);
            return JSON.booleanNode(bool);
        }
        if (value instanceof Long || value instanceof Integer || value instanceof Short || value instanceof Byte) {
            budget.spend(20);
            return integer(((Number) value).longValue());
        }
        if (value instanceof Double || value instanceof Float) {
            double number = ((Number) value).doubleValue();
            if (Double.isNaN(number) || Double.isInfinite(number)) {
                throw new ConversionException("it produced " + number + ", which JSON cannot hold");
            }
            budget.spend(24);
            return JSON.numberNode(number);
        }
        if (value instanceof UnsignedLong unsigned) {
            budget.spend(20);
            return unsigned.compareTo(UnsignedLong.valueOf(Long.MAX_VALUE)) <= 0
                    ? integer(unsigned.longValue()) : JSON.numberNode(unsigned.bigIntegerValue());
        }
        if (value instanceof BigInteger big) {
            budget.spend(big.bitLength() / 3 + 2);
            return JSON.numberNode(big);
        }
        if (value instanceof Map<?, ?> map) {
            budget.spend(2);
            ObjectNode object = JSON.objectNode();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                String key = keyText(entry.getKey());
                budget.spend(key.length() + 4L);
                object.set(key, toJson(entry.getValue(), budget));
            }
            return object;
        }
        if (value instanceof Collection<?> list) {
            budget.spend(2);
            ArrayNode array = JSON.arrayNode(list.size());
            for (Object element : list) {
                budget.spend(1);
                array.add(toJson(element, budget));
            }
            return array;
        }
        String text = scalarText(value);
        if (text != null) {
            budget.spend(text.length() + 2L);
            return JSON.textNode(text);
        }
        throw new ConversionException("it produced a " + value.getClass().getSimpleName() + ", which JSON cannot hold");
    }

    /** An integer node of the kind Jackson reads for it (int when it fits), so a result equals the parsed document. */
    private static JsonNode integer(long value) {
        return value == (int) value ? JSON.numberNode((int) value) : JSON.numberNode(value);
    }

    /** Timestamps, durations, bytes and types as the text JSON carries them; null for anything else. */
    private static String scalarText(Object value) {
        if (value instanceof Instant instant) {
            return instant.toString();
        }
        if (value instanceof Duration duration) {
            return duration.toString();
        }
        if (value instanceof com.google.protobuf.Timestamp timestamp) {
            return Instant.ofEpochSecond(timestamp.getSeconds(), timestamp.getNanos()).toString();
        }
        if (value instanceof com.google.protobuf.Duration duration) {
            return Duration.ofSeconds(duration.getSeconds(), duration.getNanos()).toString();
        }
        if (value instanceof CelByteString bytes) {
            return Base64.getEncoder().encodeToString(bytes.toByteArray());
        }
        if (value instanceof com.google.protobuf.ByteString bytes) {
            return Base64.getEncoder().encodeToString(bytes.toByteArray());
        }
        if (value instanceof byte[] bytes) {
            return Base64.getEncoder().encodeToString(bytes);
        }
        if (value instanceof CelType type) {
            return type.name();
        }
        return null;
    }

    private static String keyText(Object key) {
        if (key instanceof String text) {
            return text;
        }
        if (key instanceof Boolean || key instanceof Number || key instanceof UnsignedLong) {
            return String.valueOf(key);
        }
        throw new ConversionException("it produced a map key of type " + (key == null ? "null" : key.getClass().getSimpleName())
                + ", which a JSON object cannot hold");
    }

    /** Spends what {@code node} takes as compact JSON text, stopping as soon as the budget is exceeded. */
    private static void measure(JsonNode node, Budget budget) {
        switch (node.getNodeType()) {
            case OBJECT -> {
                budget.spend(2);
                for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = fields.next();
                    budget.spend(field.getKey().length() + 4L);
                    measure(field.getValue(), budget);
                }
            }
            case ARRAY -> {
                budget.spend(2);
                for (JsonNode element : node) {
                    budget.spend(1);
                    measure(element, budget);
                }
            }
            case STRING -> budget.spend(node.textValue().length() + 2L);
            default -> budget.spend(8);
        }
    }

    // ---- text ----------------------------------------------------------------------------------------------------

    /** A JSON value as interpolated into a longer string: text as it is, anything else as compact JSON. */
    static String interpolation(JsonNode node) {
        return node.isTextual() ? node.textValue() : node.toString();
    }

    /** A CEL value as a short excerpt of compact JSON for an error message, cut after about {@code max} characters. */
    static String excerpt(Object value, int max) {
        StringBuilder out = new StringBuilder();
        try {
            excerpt(value, out, max);
        } catch (RuntimeException e) {
            out.append("?");
        }
        return out.length() > max ? out.substring(0, max) + "…" : out.toString();
    }

    private static void excerpt(Object value, StringBuilder out, int max) {
        if (out.length() > max) {
            return;
        }
        if (value instanceof ObjectView view) {
            value = view.node;
        } else if (value instanceof ArrayView view) {
            value = view.node;
        }
        if (value instanceof JsonNode node && node.isContainerNode()) {
            boolean object = node.isObject();
            out.append(object ? '{' : '[');
            boolean first = true;
            for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); object && fields.hasNext() && out.length() <= max; ) {
                Map.Entry<String, JsonNode> field = fields.next();
                out.append(first ? "" : ",").append(quoted(field.getKey(), max)).append(':');
                excerpt(field.getValue(), out, max);
                first = false;
            }
            for (Iterator<JsonNode> elements = node.elements(); !object && elements.hasNext() && out.length() <= max; ) {
                out.append(first ? "" : ",");
                excerpt(elements.next(), out, max);
                first = false;
            }
            out.append(object ? '}' : ']');
        } else if (value instanceof JsonNode node) {
            out.append(node.isTextual() ? quoted(node.textValue(), max) : node.toString());
        } else if (value instanceof Map<?, ?> map) {
            out.append('{');
            boolean first = true;
            for (Iterator<? extends Map.Entry<?, ?>> entries = map.entrySet().iterator(); entries.hasNext() && out.length() <= max; ) {
                Map.Entry<?, ?> entry = entries.next();
                out.append(first ? "" : ",").append(quoted(String.valueOf(entry.getKey()), max)).append(':');
                excerpt(entry.getValue(), out, max);
                first = false;
            }
            out.append('}');
        } else if (value instanceof Collection<?> list) {
            out.append('[');
            boolean first = true;
            for (Iterator<?> elements = list.iterator(); elements.hasNext() && out.length() <= max; ) {
                out.append(first ? "" : ",");
                excerpt(elements.next(), out, max);
                first = false;
            }
            out.append(']');
        } else if (value instanceof String text) {
            out.append(quoted(text, max));
        } else {
            try {
                out.append(toJson(value, new Budget(Math.max(max, 64))).toString());
            } catch (ConversionException e) {
                out.append(value);
            }
        }
    }

    private static String quoted(String text, int max) {
        return JSON.textNode(text.length() > max ? text.substring(0, max) : text).toString();
    }

    /** The CEL type name of a value, for messages: int, double, string, bool, null, map, list, ... */
    static String typeName(Object value) {
        if (value == null || value instanceof NullValue || value instanceof com.google.protobuf.NullValue) {
            return "null";
        }
        if (value instanceof Long || value instanceof Integer) {
            return "int";
        }
        if (value instanceof UnsignedLong) {
            return "uint";
        }
        if (value instanceof Double || value instanceof Float) {
            return "double";
        }
        if (value instanceof String) {
            return "string";
        }
        if (value instanceof Boolean) {
            return "bool";
        }
        if (value instanceof Map<?, ?>) {
            return "map";
        }
        if (value instanceof List<?>) {
            return "list";
        }
        if (value instanceof Instant || value instanceof com.google.protobuf.Timestamp) {
            return "timestamp";
        }
        if (value instanceof Duration || value instanceof com.google.protobuf.Duration) {
            return "duration";
        }
        if (value instanceof CelByteString || value instanceof com.google.protobuf.ByteString) {
            return "bytes";
        }
        return value.getClass().getSimpleName();
    }
}
