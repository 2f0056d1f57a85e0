package dev.ductor.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.deser.std.JsonNodeDeserializer;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ValueNode;
import dev.ductor.error.BadRequestException;

import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Refuses, where JSON is read into a tree, a number too long written out in full ({@link JsonLimits#MAX_NUMBER_DIGITS}).
 * Decimals are kept exactly ({@link StrictJson}), so {@code 1e999999999} is a few bytes in memory, but anything that
 * writes it out (PostgreSQL's jsonb, a plain-form writer) needs a billion digits: one such request used to end a pod.
 * The node factory sees every number; the tree reader, which knows where the number was, names the field.
 */
public final class BoundedNumbers {

    private BoundedNumbers() {
    }

    /** Thrown by {@link Nodes} without a field; {@link Trees} says which field it was. A 400 either way. */
    static final class TooLong extends BadRequestException {
        TooLong() {
            super(null, "a number may have at most " + JsonLimits.MAX_NUMBER_DIGITS + " digits written out in full");
        }
    }

    /** Makes number nodes as Jackson's own factory does, refusing those beyond the bound. */
    public static final class Nodes extends JsonNodeFactory {

        @Override
        public ValueNode numberNode(BigDecimal value) {
            if (value != null && !JsonLimits.fitsWrittenOut(value)) {
                throw new TooLong();
            }
            return super.numberNode(value);
        }

        @Override
        public ValueNode numberNode(BigInteger value) {
            if (value != null && !JsonLimits.fitsWrittenOut(new BigDecimal(value))) {
                throw new TooLong();
            }
            return super.numberNode(value);
        }
    }

    /** Jackson's tree reader, naming the field of a number {@link Nodes} refused. */
    public static final class Trees extends JsonNodeDeserializer {

        @Override
        public JsonNode deserialize(JsonParser parser, DeserializationContext context) throws IOException {
            try {
                return super.deserialize(parser, context);
            } catch (TooLong | NumberFormatException refused) { // the latter: an exponent past what BigDecimal holds
                String field = field(parser.getParsingContext());
                throw new BadRequestException(field, (field == null ? "the body" : field) + " is a number of more than "
                        + JsonLimits.MAX_NUMBER_DIGITS + " digits written out in full (an exponent too large or too small)."
                        + " Send it as a string. Nothing was applied.");
            }
        }

        @Override
        protected JsonDeserializer<?> _createWithMerge(boolean mergeArrays, boolean mergeObjects) {
            return this; // nothing of Ductor's merges into an existing tree
        }
    }

    /** {@code payload.items.2.price}: the names and indexes from the document's root to the parser's value. */
    static String field(JsonStreamContext context) {
        Deque<String> segments = new ArrayDeque<>();
        for (JsonStreamContext at = context; at != null && !at.inRoot(); at = at.getParent()) {
            if (at.inObject() && at.getCurrentName() != null) {
                segments.addFirst(at.getCurrentName());
            } else if (at.inArray()) {
                segments.addFirst(Integer.toString(Math.max(at.getCurrentIndex(), 0)));
            }
        }
        return segments.isEmpty() ? null : String.join(".", segments);
    }
}
