package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.List;
import java.util.Set;

/** A bare CEL expression, as in {@code when} and {@code forEach}. Compiled once, evaluated by the pure tick. */
public final class Expression {

    /** Throws {@link InvalidExpressionException} when it does not compile or reads outside {@code scope}. */
    public static Expression compile(String source, Scope scope) {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    /** Throws {@link EvaluationException}, also when the value is not a boolean. */
    public boolean evaluateBoolean(Bindings bindings) {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    /** Throws {@link EvaluationException}, also when the value is not a list. */
    public List<JsonNode> evaluateList(Bindings bindings) {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    public JsonNode evaluate(Bindings bindings) {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    public Set<String> nodesRead() {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    public String source() {
        throw new UnsupportedOperationException("implemented on branch cel");
    }
}
