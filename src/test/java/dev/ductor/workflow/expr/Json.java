package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Set;

/** Helpers of the expression tests: JSON from text (single quotes allowed), and bindings of a small run. */
final class Json {

    static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    /** JSON with ' for " so the tests stay readable. */
    static JsonNode json(String text) {
        try {
            return MAPPER.readTree(text.replace('\'', '"'));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Scope scope(String... readable) {
        return new Scope(Set.of(readable), false);
    }

    static Scope fanOut(String... readable) {
        return new Scope(Set.of(readable), true);
    }

    static final RunFacts RUN = new RunFacts("0b9c7e1e-7a4e-4d0e-9d7b-3f1a2b3c4d5e", "order", 3);

    /** The run's input {orderId, cents, lines[2]}; charge declined (FAILED), ship SUCCEEDED with a tracking number. */
    static Bindings bindings() {
        return Bindings.of(json("{'orderId': 'o-1', 'cents': 1250, 'rate': 0.5, 'express': true, 'note': null,"
                        + " 'lines': [{'sku': 'A', 'n': 2}, {'sku': 'B', 'n': 1}]}"),
                Map.of("charge", new NodeFacts("FAILED", json("{'status': 'declined'}"), "card declined", 2),
                        "ship", new NodeFacts("SUCCEEDED", json("{'tracking': 'T-9', 'parcels': [1, 2]}"), null, 1),
                        "pending", new NodeFacts("PENDING", null, null, 0)),
                RUN);
    }
}
