package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.Set;

/**
 * A JSON value whose strings may hold {@code ${{ expr }}}: a string that is exactly one such placeholder becomes the
 * expression's JSON value (its type kept), a placeholder inside a longer string is interpolated as text. Compiled once,
 * when the definition is saved or loaded; evaluated by the pure tick.
 */
public final class Template {

    /** Compiles every placeholder in {@code template}; throws {@link InvalidExpressionException} naming each bad one. */
    public static Template compile(JsonNode template, Scope scope) {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    /** The JSON value with every placeholder replaced; throws {@link EvaluationException}. */
    public JsonNode evaluate(Bindings bindings) {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    /** The node ids the template's expressions read through {@code nodes.<id>}. */
    public Set<String> nodesRead() {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    /** True when the template holds no placeholder: {@link #evaluate} returns {@link #source()} as it is. */
    public boolean isStatic() {
        throw new UnsupportedOperationException("implemented on branch cel");
    }

    public JsonNode source() {
        throw new UnsupportedOperationException("implemented on branch cel");
    }
}
