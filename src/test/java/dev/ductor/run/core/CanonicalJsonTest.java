package dev.ductor.run.core;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.UncheckedIOException;
import java.time.Duration;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The canonical form never spells out a number: {@code 1e999999999} is a few characters as sent and a billion digits
 * written out in full. Numbers the API accepts keep the plain form they always had, so fingerprints and checksums stored
 * before stay valid.
 */
@Tag("unit")
class CanonicalJsonTest {

    /** Decimals exactly, as BigDecimal, as the application reads them; and no bound on them: the writer must cope alone. */
    private static final ObjectMapper EXACT = new ObjectMapper(JsonFactory.builder()
            .streamReadConstraints(StreamReadConstraints.builder().maxNumberLength(100_000).build()).build())
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private static JsonNode json(String text) {
        try {
            return EXACT.readTree(text);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String canonical(String text) {
        StringBuilder out = new StringBuilder();
        CanonicalJson.write(json(text), out);
        return out.toString();
    }

    @Test
    void aHugeExponentIsWrittenInAFewCharactersNotSpelledOut() {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            for (String number : new String[] {"1e999999999", "-1e999999999", "1e-999999999", "-2.5e-999999999", "7E+2147483647"}) {
                String written = canonical("{\"n\":" + number + "}");
                assertTrue(written.length() < 40, () -> number + " was written as " + written.length() + " characters");
            }
        });
    }

    @Test
    void fingerprintsOfHostileNumbersAreQuickAndTellValuesApart() {
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            String huge = RequestFingerprint.of(json("{\"payload\":1e999999999}"));
            assertEquals(huge, RequestFingerprint.of(json("{\"payload\":10e999999998}")), "the same value in another notation");
            assertNotEquals(huge, RequestFingerprint.of(json("{\"payload\":1e999999998}")));
            assertNotEquals(RequestFingerprint.of(json("{\"payload\":1e-999999999}")), RequestFingerprint.of(json("{\"payload\":1e-999999998}")));
        });
    }

    @Test
    void numbersOfAReasonableSizeKeepTheirPlainForm() {
        assertEquals("{\"a\":1000,\"b\":1.5,\"c\":0.00001,\"d\":-42,\"e\":0}", canonical("{\"b\":1.50,\"a\":1e3,\"c\":1e-5,\"d\":-42,\"e\":0.0}"));
        assertEquals("1" + "0".repeat(999), canonical("1e999"));
        assertEquals("0." + "0".repeat(998) + "1", canonical("1e-999"));
    }

    @Test
    void aValueBeyondThePlainFormIsWrittenTheSameHoweverItWasSent() {
        assertEquals(canonical("1e1500"), canonical("1" + "0".repeat(1500)));
        assertEquals(canonical("1e1500"), canonical("100.0e1498"));
        assertNotEquals(canonical("1e1500"), canonical("1e1501"));
    }
}
