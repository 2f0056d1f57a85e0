package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;

/** A bare CEL expression, as in {@code when} and {@code forEach}. Compiled once, evaluated by the pure tick. */
public final class Expression {

    private final CompiledExpression compiled;

    private Expression(CompiledExpression compiled) {
        this.compiled = compiled;
    }

    /** Throws {@link InvalidExpressionException} when it does not compile or reads outside {@code scope}. */
    public static Expression compile(String source, Scope scope) {
        List<ExpressionProblem> problems = new ArrayList<>();
        if (source != null && source.strip().startsWith("${{")) {
            problems.add(new ExpressionProblem("", source, "is a bare expression, written without ${{ }}: "
                    + source.strip().replaceFirst("^\\$\\{\\{\\s*", "").replaceFirst("\\s*}}$", "")));
            throw new InvalidExpressionException(problems);
        }
        CompiledExpression compiled = CompiledExpression.compile(source, scope, "", problems);
        if (compiled == null) {
            throw new InvalidExpressionException(problems);
        }
        return new Expression(compiled);
    }

    /** Throws {@link EvaluationException}, also when the value is not a boolean. */
    public boolean evaluateBoolean(Bindings bindings) {
        Object value = compiled.evaluate(bindings);
        if (value instanceof Boolean bool) {
            return bool;
        }
        throw compiled.failed("it must give a bool, but gave " + JsonCel.typeName(value) + " " + JsonCel.excerpt(value, 200));
    }

    /** Throws {@link EvaluationException}, also when the value is not a list. */
    public List<JsonNode> evaluateList(Bindings bindings) {
        Object value = compiled.evaluate(bindings);
        if (!(value instanceof List<?> list)) {
            throw compiled.failed("it must give a list, but gave " + JsonCel.typeName(value) + " " + JsonCel.excerpt(value, 200));
        }
        JsonCel.Budget budget = new JsonCel.Budget(CelEnvironment.MAX_LIST_CHARS);
        List<JsonNode> items = new ArrayList<>(list.size());
        try {
            for (Object element : list) {
                items.add(JsonCel.toJson(element, budget));
            }
        } catch (JsonCel.ConversionException e) {
            throw compiled.failed(e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            throw compiled.failed("its value could not be read as JSON: " + e);
        }
        return Collections.unmodifiableList(items);
    }

    /** The expression's value as JSON (bounded like a template's); throws {@link EvaluationException}. */
    public JsonNode evaluate(Bindings bindings) {
        return toJson(compiled, compiled.evaluate(bindings), new JsonCel.Budget(CelEnvironment.MAX_RESULT_CHARS));
    }

    static JsonNode toJson(CompiledExpression compiled, Object value, JsonCel.Budget budget) {
        try {
            return JsonCel.toJson(value, budget);
        } catch (JsonCel.ConversionException e) {
            throw compiled.failed(e.getMessage());
        } catch (RuntimeException | StackOverflowError e) {
            throw compiled.failed("its value could not be read as JSON: " + e);
        }
    }

    public Set<String> nodesRead() {
        return compiled.nodesRead();
    }

    public String source() {
        return compiled.source();
    }

    @Override
    public String toString() {
        return compiled.source();
    }
}
