package dev.ductor.config;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;

/**
 * The bounds of every JSON document the application reads, requests and stored columns alike (docs/operations.md,
 * "Limits and hardening"). A request body is capped at 1 MiB, but a few bytes of JSON can still ask for much more:
 * {@code 1e999999999} is a billion digits written out, and ten thousand {@code [} are ten thousand levels of nesting.
 */
public final class JsonLimits {

    /** Far deeper than any payload needs, far shallower than what would exhaust a thread's stack in a recursive walk. */
    public static final int MAX_NESTING_DEPTH = 500;

    /**
     * Levels a payload (a run's input, a signal's or event's payload, a task's output, a rule's templates) may nest. Well inside
     * {@link #MAX_NESTING_DEPTH}: what Ductor stores wraps a payload deeper (a node's output in the node states, a child
     * run's output in its parent's), and a stored document that no longer read back would stop its run.
     */
    public static final int MAX_PAYLOAD_DEPTH = 100;

    /** Digits a number may have when written out in full ({@code 1e1000} has 1001): PostgreSQL's jsonb stores it so. */
    public static final int MAX_NUMBER_DIGITS = 1000;

    /**
     * Characters of a number as sent. Above {@link #MAX_NUMBER_DIGITS}, for a sign, a point and a leading zero: a
     * number PostgreSQL hands back written out in full must read back.
     */
    public static final int MAX_NUMBER_LENGTH = 1100;

    /**
     * Characters of one string. Requests are bounded far below by the body limit and the payload cap; this is above
     * anything stored (a step's output), which must always read back.
     */
    public static final int MAX_STRING_LENGTH = 20_000_000;

    private JsonLimits() {
    }

    public static StreamReadConstraints streamReadConstraints() {
        return StreamReadConstraints.builder()
                .maxNestingDepth(MAX_NESTING_DEPTH)
                .maxNumberLength(MAX_NUMBER_LENGTH)
                .maxStringLength(MAX_STRING_LENGTH)
                .build();
    }

    /** How many digits {@code number} has written out in full, without writing it: {@code 1e999999999} is 1000000000. */
    public static long plainDigits(BigDecimal number) {
        long precision = number.precision();
        long scale = number.scale();
        if (scale <= 0) {
            return precision - scale; // the zeros a negative scale adds
        }
        return scale < precision ? precision : scale + 1; // 0.001: a leading zero and the scale's digits
    }

    public static boolean fitsWrittenOut(BigDecimal number) {
        return plainDigits(number) <= MAX_NUMBER_DIGITS;
    }

    /** Objects and arrays count a level each; the reader bounds the recursion ({@link #MAX_NESTING_DEPTH}). */
    public static boolean nestsAtMost(JsonNode value, int levels) {
        if (!value.isContainerNode()) {
            return true;
        }
        if (levels == 0) {
            return false;
        }
        for (JsonNode child : value) {
            if (!nestsAtMost(child, levels - 1)) {
                return false;
            }
        }
        return true;
    }
}
