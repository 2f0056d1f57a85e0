package dev.ductor.validation;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.Map;

/**
 * An upper bound on the length of a JSON value's compact text, found without writing it: every payload's size is
 * checked ({@link Constraints.MaxJsonSize}), almost every payload is far below its cap, and writing the whole value out
 * to measure it would be most of the work of validating a run start. Only a value whose bound passes the cap is written
 * out to be measured exactly.
 */
final class JsonSizeBound {

    /** No bound is known (a value the tree holds as a Java object): measure it exactly. */
    static final long UNKNOWN = Long.MAX_VALUE;

    private JsonSizeBound() {
    }

    /** At least as long as {@code value}'s compact JSON; {@link #UNKNOWN} as soon as it passes {@code cap}. */
    static long atMost(JsonNode value, long cap) {
        return switch (value.getNodeType()) {
            case OBJECT -> {
                long size = 2;
                for (Map.Entry<String, JsonNode> field : value.properties()) {
                    size = plus(size, text(field.getKey()) + 2 + atMost(field.getValue(), cap)); // a colon, a comma
                    if (size > cap) {
                        break;
                    }
                }
                yield size <= cap ? size : UNKNOWN;
            }
            case ARRAY -> {
                long size = 2;
                for (int i = 0; i < value.size() && size <= cap; i++) {
                    size = plus(size, 1 + atMost(value.get(i), cap)); // a comma
                }
                yield size <= cap ? size : UNKNOWN;
            }
            case STRING -> text(value.textValue());
            case NUMBER -> number(value);
            case BOOLEAN, NULL -> 5;
            case MISSING -> 0;
            case BINARY, POJO -> UNKNOWN;
        };
    }

    /** Quoted, each character escaped at worst as {@code \}{@code uXXXX}. */
    private static long text(String text) {
        return 2 + 6L * text.length();
    }

    private static long number(JsonNode number) {
        if (number.isBigDecimal()) {
            BigDecimal decimal = number.decimalValue();
            // Scientific or plain (WRITE_BIGDECIMAL_AS_PLAIN): the digits, the zeros the scale adds, sign, point, exponent.
            return decimal.precision() + Math.abs((long) decimal.scale()) + 16;
        }
        if (number.isBigInteger()) {
            return number.bigIntegerValue().bitLength() / 3 + 2;
        }
        return 32; // int, long, float, double: Long.MIN_VALUE is 20 characters, a double at most 24
    }

    private static long plus(long a, long b) {
        return b == UNKNOWN || a > UNKNOWN - b ? UNKNOWN : a + b;
    }
}
