package dev.ductor.validation;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class JsonSizeBoundTest {

    private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);
    private static final int CAP = 256 * 1024;

    @Test
    void theBoundIsNeverShorterThanTheTextWrittenEitherWay() throws Exception {
        ObjectMapper plainDecimals = new ObjectMapper().enable(JsonGenerator.Feature.WRITE_BIGDECIMAL_AS_PLAIN);
        Random random = new Random(7);
        for (int i = 0; i < 5_000; i++) {
            JsonNode value = randomValue(random, 0);
            long bound = JsonSizeBound.atMost(value, Long.MAX_VALUE - 1);
            assertTrue(bound >= value.toString().length(), () -> bound + " < " + value);
            assertTrue(bound >= plainDecimals.writeValueAsString(value).length(), () -> bound + " < plain " + value);
        }
    }

    @Test
    void aValuePastTheCapHasNoBound() {
        ArrayNode big = NODES.arrayNode();
        for (int i = 0; i < 1_000; i++) {
            big.add("x".repeat(100));
        }
        assertEquals(JsonSizeBound.UNKNOWN, JsonSizeBound.atMost(big, CAP));
        assertEquals(JsonSizeBound.UNKNOWN, JsonSizeBound.atMost(NODES.objectNode().set("a", big), CAP));
    }

    @Test
    void theCapStillJudgesByTheExactText() {
        // Escaping makes a string's bound six times its length: a value near the cap is measured exactly.
        Constraints.MaxJsonSize.Check check = new Constraints.MaxJsonSize.Check();
        check.initialize(Holder.class.getRecordComponents()[0].getAnnotation(Constraints.MaxJsonSize.class));
        assertTrue(check.isValid(NODES.objectNode().put("s", "y".repeat(CAP - 10)), null));
        assertFalse(check.isValid(NODES.objectNode().put("s", "y".repeat(CAP)), null));
        assertTrue(check.isValid(NODES.objectNode().put("s", "small"), null));
    }

    private record Holder(@Constraints.MaxJsonSize JsonNode input) {
    }

    private static JsonNode randomValue(Random random, int depth) {
        return switch (depth > 3 ? random.nextInt(6) : random.nextInt(8)) {
            case 0 -> NODES.textNode(randomText(random));
            case 1 -> NODES.numberNode(random.nextLong());
            case 2 -> NODES.numberNode(new BigDecimal(new BigInteger(random.nextInt(200) + 1, random), random.nextInt(800) - 400));
            case 3 -> NODES.numberNode(random.nextDouble() * Math.pow(10, random.nextInt(600) - 300));
            case 4 -> random.nextBoolean() ? NODES.booleanNode(random.nextBoolean()) : NODES.nullNode();
            case 5 -> NODES.numberNode(new BigInteger(random.nextInt(300) + 1, random).negate());
            case 6 -> {
                ArrayNode array = NODES.arrayNode();
                for (int i = random.nextInt(5); i > 0; i--) {
                    array.add(randomValue(random, depth + 1));
                }
                yield array;
            }
            default -> {
                ObjectNode object = NODES.objectNode();
                for (int i = random.nextInt(5); i > 0; i--) {
                    object.set(randomText(random), randomValue(random, depth + 1));
                }
                yield object;
            }
        };
    }

    /** ASCII (control characters included, which JSON escapes) and any other UTF-16 unit. */
    private static String randomText(Random random) {
        StringBuilder text = new StringBuilder();
        for (int i = random.nextInt(12); i > 0; i--) {
            text.append((char) (random.nextBoolean() ? random.nextInt(0x80) : random.nextInt(0x10000)));
        }
        return text.toString();
    }
}
