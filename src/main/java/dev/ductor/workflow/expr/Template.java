package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * A JSON value whose strings may hold {@code ${{ expr }}}: a string that is exactly one such placeholder becomes the
 * expression's JSON value (its type kept), a placeholder inside a longer string is interpolated as text. Compiled once,
 * when the definition is saved or loaded; evaluated by the pure tick.
 *
 * <p>Interpolated, a string stays as it is, and any other value is its compact JSON ({@code null}, {@code 3},
 * {@code {"a":1}}). Parts of the template without a placeholder are the template's own nodes in the result, not
 * copies; so is a value an expression passes through unchanged ({@code ${{ input }}}). Treat results as read-only.
 * One evaluation produces at most {@value CelEnvironment#MAX_RESULT_CHARS} characters of JSON from its expressions.
 * Object keys are not templates.
 */
public final class Template {

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String OPEN = "${{";

    private final JsonNode source;
    private final Part root;
    private final Set<String> nodesRead;

    private Template(JsonNode source, Part root, Set<String> nodesRead) {
        this.source = source;
        this.root = root;
        this.nodesRead = nodesRead;
    }

    /** Compiles every placeholder in {@code template}; throws {@link InvalidExpressionException} naming each bad one. */
    public static Template compile(JsonNode template, Scope scope) {
        if (template == null) {
            return new Template(null, new Fixed(null), Set.of());
        }
        Compiler compiler = new Compiler(scope);
        Part root = compiler.compile(template, "");
        if (!compiler.problems.isEmpty()) {
            throw new InvalidExpressionException(compiler.problems);
        }
        return new Template(template, root, Collections.unmodifiableSet(compiler.nodesRead));
    }

    /** The JSON value with every placeholder replaced; throws {@link EvaluationException}. */
    public JsonNode evaluate(Bindings bindings) {
        if (root instanceof Fixed fixed) {
            return fixed.node;
        }
        return root.evaluate(bindings, new JsonCel.Budget(CelEnvironment.MAX_RESULT_CHARS));
    }

    /** The node ids the template's expressions read through {@code nodes.<id>}. */
    public Set<String> nodesRead() {
        return nodesRead;
    }

    /** True when the template holds no placeholder: {@link #evaluate} returns {@link #source()} as it is. */
    public boolean isStatic() {
        return root instanceof Fixed;
    }

    public JsonNode source() {
        return source;
    }

    @Override
    public String toString() {
        return String.valueOf(source);
    }

    // ---- the compiled tree ---------------------------------------------------------------------------------------

    private interface Part {
        JsonNode evaluate(Bindings bindings, JsonCel.Budget budget);
    }

    /** A subtree without a placeholder: itself. */
    private record Fixed(JsonNode node) implements Part {
        @Override
        public JsonNode evaluate(Bindings bindings, JsonCel.Budget budget) {
            return node;
        }
    }

    /** A string that is exactly one placeholder: the expression's value. */
    private record Whole(CompiledExpression expression) implements Part {
        @Override
        public JsonNode evaluate(Bindings bindings, JsonCel.Budget budget) {
            return Expression.toJson(expression, expression.evaluate(bindings), budget);
        }
    }

    /** A string with placeholders among text: each piece is a String or a CompiledExpression. */
    private record Text(List<Object> pieces) implements Part {
        @Override
        public JsonNode evaluate(Bindings bindings, JsonCel.Budget budget) {
            StringBuilder text = new StringBuilder();
            for (Object piece : pieces) {
                if (piece instanceof CompiledExpression expression) {
                    text.append(JsonCel.interpolation(Expression.toJson(expression, expression.evaluate(bindings), budget)));
                } else {
                    String fixed = (String) piece;
                    budget.spend(fixed.length());
                    text.append(fixed);
                }
            }
            return JSON.textNode(text.toString());
        }
    }

    private record Fields(List<String> names, List<Part> values) implements Part {
        @Override
        public JsonNode evaluate(Bindings bindings, JsonCel.Budget budget) {
            ObjectNode object = JSON.objectNode();
            for (int i = 0; i < names.size(); i++) {
                object.set(names.get(i), values.get(i).evaluate(bindings, budget));
            }
            return object;
        }
    }

    private record Elements(List<Part> values) implements Part {
        @Override
        public JsonNode evaluate(Bindings bindings, JsonCel.Budget budget) {
            ArrayNode array = JSON.arrayNode(values.size());
            for (Part value : values) {
                array.add(value.evaluate(bindings, budget));
            }
            return array;
        }
    }

    // ---- compiling -----------------------------------------------------------------------------------------------

    private static final class Compiler {
        final Scope scope;
        final List<ExpressionProblem> problems = new ArrayList<>();
        final Set<String> nodesRead = new TreeSet<>();

        Compiler(Scope scope) {
            this.scope = scope;
        }

        Part compile(JsonNode node, String path) {
            if (node.isObject()) {
                List<String> names = new ArrayList<>(node.size());
                List<Part> values = new ArrayList<>(node.size());
                boolean fixed = true;
                for (Iterator<Map.Entry<String, JsonNode>> fields = node.fields(); fields.hasNext(); ) {
                    Map.Entry<String, JsonNode> field = fields.next();
                    Part value = compile(field.getValue(), path.isEmpty() ? field.getKey() : path + "." + field.getKey());
                    names.add(field.getKey());
                    values.add(value);
                    fixed &= value instanceof Fixed;
                }
                return fixed ? new Fixed(node) : new Fields(List.copyOf(names), List.copyOf(values));
            }
            if (node.isArray()) {
                List<Part> values = new ArrayList<>(node.size());
                boolean fixed = true;
                for (int i = 0; i < node.size(); i++) {
                    Part value = compile(node.get(i), path + "[" + i + "]");
                    values.add(value);
                    fixed &= value instanceof Fixed;
                }
                return fixed ? new Fixed(node) : new Elements(List.copyOf(values));
            }
            if (node.isTextual() && node.textValue().contains(OPEN)) {
                return string(node, path);
            }
            return new Fixed(node);
        }

        private Part string(JsonNode node, String path) {
            String text = node.textValue();
            List<Object> pieces = new ArrayList<>();
            int from = 0;
            boolean ok = true;
            while (from < text.length()) {
                int open = text.indexOf(OPEN, from);
                if (open < 0) {
                    pieces.add(text.substring(from));
                    break;
                }
                if (open > from) {
                    pieces.add(text.substring(from, open));
                }
                int close = closing(text, open + OPEN.length());
                if (close < 0) {
                    problems.add(new ExpressionProblem(path, text.substring(open), "'${{' at character " + (open + 1)
                            + " has no closing '}}'"));
                    return new Fixed(node);
                }
                String source = text.substring(open + OPEN.length(), close).trim();
                CompiledExpression expression = CompiledExpression.compile(source, scope, path, problems);
                if (expression == null) {
                    ok = false;
                } else {
                    nodesRead.addAll(expression.nodesRead());
                    pieces.add(expression);
                }
                from = close + 2;
            }
            if (!ok) {
                return new Fixed(node);
            }
            if (pieces.size() == 1 && pieces.get(0) instanceof CompiledExpression expression) {
                return new Whole(expression);
            }
            return new Text(List.copyOf(pieces));
        }
    }

    /**
     * Where the {@code }}} closing a placeholder starts, scanning from {@code from} (just after its {@code ${{}):
     * the first {@code }}} outside CEL string literals and outside braces the expression opened itself (a map literal
     * may end in {@code }}}); -1 when there is none.
     */
    static int closing(String text, int from) {
        int depth = 0;
        int i = from;
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '"' || c == '\'') {
                boolean raw = i > from && (text.charAt(i - 1) == 'r' || text.charAt(i - 1) == 'R');
                i = afterLiteral(text, i, raw);
                if (i < 0) {
                    return -1;
                }
                continue;
            }
            if (c == '{') {
                depth++;
            } else if (c == '}') {
                if (depth > 0) {
                    depth--;
                } else if (i + 1 < text.length() && text.charAt(i + 1) == '}') {
                    return i;
                }
            }
            i++;
        }
        return -1;
    }

    /** The index just after the string literal starting at {@code start} (quote or triple quote), or -1 if unclosed. */
    private static int afterLiteral(String text, int start, boolean raw) {
        char quote = text.charAt(start);
        String triple = String.valueOf(quote).repeat(3);
        boolean isTriple = text.startsWith(triple, start);
        int i = start + (isTriple ? 3 : 1);
        while (i < text.length()) {
            char c = text.charAt(i);
            if (c == '\\' && !raw) {
                i += 2;
                continue;
            }
            if (isTriple ? text.startsWith(triple, i) : c == quote) {
                return i + (isTriple ? 3 : 1);
            }
            if (!isTriple && c == '\n') {
                return -1;
            }
            i++;
        }
        return -1;
    }
}
