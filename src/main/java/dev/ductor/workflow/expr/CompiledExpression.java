package dev.ductor.workflow.expr;

import dev.cel.common.CelAbstractSyntaxTree;
import dev.cel.common.CelErrorCode;
import dev.cel.common.CelIssue;
import dev.cel.common.CelValidationResult;
import dev.cel.common.ast.CelConstant;
import dev.cel.common.ast.CelExpr;
import dev.cel.compiler.CelCompiler;
import dev.cel.parser.CelUnparserFactory;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelUnknownSet;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static dev.ductor.workflow.expr.CelEnvironment.INDEX;
import static dev.ductor.workflow.expr.CelEnvironment.INPUT;
import static dev.ductor.workflow.expr.CelEnvironment.ITEM;
import static dev.ductor.workflow.expr.CelEnvironment.NODES;
import static dev.ductor.workflow.expr.CelEnvironment.RUN;

/**
 * One CEL expression, checked and planned once: its program, the variables it names and the nodes it reads. An
 * evaluation hands CEL only those variables, and of {@code nodes} only the nodes it reads.
 */
final class CompiledExpression {

    /** What {@code nodes.<id>} has. */
    static final Set<String> NODE_FIELDS = Set.of("output", "state", "error", "attempts");
    private static final int EXCERPT = 200;
    private static final Pattern CEL_PREFIX = Pattern.compile("^evaluation error(?: at [^:]*:(\\d+))?: ", Pattern.DOTALL);
    private static final Pattern NOT_A_MAP = Pattern.compile("^Error resolving field '(.*)'\\. Field selections must be");
    private static final Pattern MISSING_KEY = Pattern.compile("^key '(.*)' is not present in map\\.?$", Pattern.DOTALL);

    private final String source;
    private final CelAbstractSyntaxTree ast;
    private final CelRuntime.Program program;
    private final Set<String> nodesRead;
    private final boolean readsInput;
    private final boolean readsRun;
    private final boolean readsItem;
    private final boolean readsIndex;

    private CompiledExpression(String source, CelAbstractSyntaxTree ast, CelRuntime.Program program, Walk walk) {
        this.source = source;
        this.ast = ast;
        this.program = program;
        this.nodesRead = Collections.unmodifiableSet(new TreeSet<>(walk.nodes));
        this.readsInput = walk.variables.contains(INPUT);
        this.readsRun = walk.variables.contains(RUN);
        this.readsItem = walk.variables.contains(ITEM);
        this.readsIndex = walk.variables.contains(INDEX);
    }

    String source() {
        return source;
    }

    Set<String> nodesRead() {
        return nodesRead;
    }

    // ---- compiling -----------------------------------------------------------------------------------------------

    /** The compiled expression, or null after adding to {@code problems} every reason it cannot be one. */
    static CompiledExpression compile(String source, Scope scope, String path, List<ExpressionProblem> problems) {
        if (source == null || source.isBlank()) {
            problems.add(new ExpressionProblem(path, source == null ? "" : source, "the expression is empty"));
            return null;
        }
        if (source.length() > CelEnvironment.MAX_SOURCE_LENGTH) {
            problems.add(new ExpressionProblem(path, source, "the expression is " + source.length()
                    + " characters long; the limit is " + CelEnvironment.MAX_SOURCE_LENGTH));
            return null;
        }
        CelCompiler compiler = scope.fanOut() ? CelEnvironment.FAN_OUT : CelEnvironment.PLAIN;
        CelAbstractSyntaxTree ast;
        try {
            CelValidationResult result = compiler.compile(source);
            if (result.hasError()) {
                Set<String> messages = new LinkedHashSet<>();
                for (CelIssue issue : result.getErrors()) {
                    messages.add(compileError(issue, scope));
                }
                messages.forEach(message -> problems.add(new ExpressionProblem(path, source, message)));
                if (!scope.fanOut() && result.getErrors().stream().allMatch(CompiledExpression::namesItemOrIndex)) {
                    // Only item or index was wrong: what else the expression reads is still worth reporting.
                    CelValidationResult asFanOut = CelEnvironment.FAN_OUT.compile(source);
                    if (!asFanOut.hasError()) {
                        Walk walk = new Walk(scope);
                        walk.visit(asFanOut.getAst().getExpr());
                        walk.problems.forEach(message -> problems.add(new ExpressionProblem(path, source, message)));
                    }
                }
                return null;
            }
            ast = result.getAst();
        } catch (Exception | StackOverflowError e) {
            problems.add(new ExpressionProblem(path, source, "does not compile: " + e.getMessage()));
            return null;
        }
        Walk walk = new Walk(scope);
        walk.visit(ast.getExpr());
        if (!walk.problems.isEmpty()) {
            walk.problems.forEach(message -> problems.add(new ExpressionProblem(path, source, message)));
            return null;
        }
        try {
            return new CompiledExpression(source, ast, CelEnvironment.RUNTIME.createProgram(ast), walk);
        } catch (Exception e) {
            problems.add(new ExpressionProblem(path, source, "cannot be planned: " + e.getMessage()));
            return null;
        }
    }

    private static boolean namesItemOrIndex(CelIssue issue) {
        return issue.getMessage().startsWith("undeclared reference to '" + ITEM + "'")
                || issue.getMessage().startsWith("undeclared reference to '" + INDEX + "'");
    }

    private static String compileError(CelIssue issue, Scope scope) {
        String message = issue.getMessage();
        for (String fanOutOnly : List.of(ITEM, INDEX)) {
            if (!scope.fanOut() && message.startsWith("undeclared reference to '" + fanOutOnly + "'")) {
                return "uses '" + fanOutOnly + "', which exists only in the input of a node with forEach";
            }
        }
        message = message.replace(" (in container '')", "");
        int line = issue.getSourceLocation().getLine();
        int column = issue.getSourceLocation().getColumn() + 1;
        return "does not compile: " + message + (line > 1 ? " (line " + line + ", column " + column + ")"
                : column > 0 ? " (at column " + column + ")" : "");
    }

    /**
     * Walks the checked tree: which variables it names, which nodes it reads, and what it may not do (read a node
     * outside the scope, index {@code nodes} by a computed key, use {@code nodes} as a whole, name a field a node
     * lacks). Names bound by a comprehension ({@code x} in {@code list.map(x, ...)}) hide the variables they shadow.
     */
    private static final class Walk {
        final Scope scope;
        final Set<String> variables = new LinkedHashSet<>();
        final Set<String> nodes = new LinkedHashSet<>();
        final Set<String> problems = new LinkedHashSet<>();
        final Deque<String> bound = new ArrayDeque<>();

        Walk(Scope scope) {
            this.scope = scope;
        }

        void visit(CelExpr expr) {
            switch (expr.getKind()) {
                case IDENT -> {
                    String name = expr.ident().name();
                    if (bound.contains(name)) {
                        return;
                    }
                    if (name.equals(NODES)) {
                        problems.add("uses 'nodes' as a whole; name the node it reads, as nodes.<id>");
                    }
                    variables.add(name);
                }
                case SELECT -> {
                    CelExpr operand = expr.select().operand();
                    if (isNodes(operand)) {
                        readNode(expr.select().field());
                        return;
                    }
                    String node = nodeOf(operand);
                    if (node != null) {
                        checkField(node, expr.select().field());
                    }
                    visit(operand);
                }
                case CALL -> {
                    var call = expr.call();
                    if (isIndex(call.function()) && call.args().size() == 2) {
                        CelExpr operand = call.args().get(0);
                        CelExpr key = call.args().get(1);
                        if (isNodes(operand)) {
                            String id = constantString(key);
                            if (id != null) {
                                readNode(id);
                            } else {
                                problems.add("reads nodes[...] with a computed key, which could read any node;"
                                        + " name the node, as nodes.<id> or nodes['<id>']");
                                visit(key);
                            }
                            return;
                        }
                        String node = nodeOf(operand);
                        String field = constantString(key);
                        if (node != null && field != null) {
                            checkField(node, field);
                        }
                    }
                    call.target().ifPresent(this::visit);
                    call.args().forEach(this::visit);
                }
                case LIST -> expr.list().elements().forEach(this::visit);
                case MAP -> expr.map().entries().forEach(entry -> {
                    visit(entry.key());
                    visit(entry.value());
                });
                case STRUCT -> expr.struct().entries().forEach(entry -> visit(entry.value()));
                case COMPREHENSION -> {
                    var loop = expr.comprehension();
                    visit(loop.iterRange());
                    visit(loop.accuInit());
                    List<String> names = new ArrayList<>(List.of(loop.iterVar(), loop.accuVar()));
                    if (!loop.iterVar2().isEmpty()) {
                        names.add(loop.iterVar2());
                    }
                    names.forEach(bound::push);
                    visit(loop.loopCondition());
                    visit(loop.loopStep());
                    visit(loop.result());
                    names.forEach(name -> bound.pop());
                }
                default -> {
                }
            }
        }

        boolean isNodes(CelExpr expr) {
            return expr.getKind() == CelExpr.ExprKind.Kind.IDENT && expr.ident().name().equals(NODES) && !bound.contains(NODES);
        }

        /** The node id when {@code expr} is {@code nodes.<id>} or {@code nodes['<id>']}, else null. */
        String nodeOf(CelExpr expr) {
            if (expr.getKind() == CelExpr.ExprKind.Kind.SELECT && isNodes(expr.select().operand())) {
                return expr.select().field();
            }
            if (expr.getKind() == CelExpr.ExprKind.Kind.CALL && isIndex(expr.call().function())
                    && expr.call().args().size() == 2 && isNodes(expr.call().args().get(0))) {
                return constantString(expr.call().args().get(1));
            }
            return null;
        }

        void readNode(String id) {
            variables.add(NODES);
            nodes.add(id);
            if (!scope.readableNodes().contains(id)) {
                List<String> readable = new ArrayList<>(new TreeSet<>(scope.readableNodes()));
                problems.add("reads node '" + id + "', which is not among this node's dependencies (direct or transitive): "
                        + (readable.isEmpty() ? "it has none" : String.join(", ", readable)));
            }
        }

        void checkField(String node, String field) {
            if (!NODE_FIELDS.contains(field)) {
                problems.add("reads nodes." + node + "." + field + ", but a node has only output, state, error and attempts");
            }
        }

        static boolean isIndex(String function) {
            return function.equals("_[_]") || function.equals("_[?_]");
        }

        static String constantString(CelExpr expr) {
            return expr.getKind() == CelExpr.ExprKind.Kind.CONSTANT
                    && expr.constant().getKind() == CelConstant.Kind.STRING_VALUE ? expr.constant().stringValue() : null;
        }
    }

    // ---- evaluating ----------------------------------------------------------------------------------------------

    /** The CEL value; throws {@link EvaluationException} naming this expression and what it met. */
    Object evaluate(Bindings bindings) {
        Map<String, Object> activation = activation(bindings);
        Object value;
        try {
            value = program.eval(activation);
        } catch (CelEvaluationException e) {
            throw new EvaluationException(describe(e, activation));
        } catch (RuntimeException | StackOverflowError e) {
            throw failed(String.valueOf(e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        if (value instanceof CelUnknownSet) {
            throw failed("it read a variable that has no value here");
        }
        return value;
    }

    EvaluationException failed(String what) {
        return new EvaluationException("expression '" + source + "' failed: " + what);
    }

    private Map<String, Object> activation(Bindings bindings) {
        Map<String, Object> activation = new HashMap<>(8);
        try {
            if (readsInput) {
                activation.put(INPUT, JsonCel.toCel(bindings.input()));
            }
            if (readsRun) {
                RunFacts run = bindings.run();
                // Insertion-ordered maps throughout: ${{ run }} must give the same JSON, key order included, every time.
                Map<String, Object> facts = new LinkedHashMap<>(4);
                if (run != null) {
                    facts.put("id", text(run.id()));
                    facts.put("workflow", text(run.workflow()));
                    facts.put("revision", (long) run.revision());
                }
                activation.put(RUN, facts);
            }
            if (readsItem) {
                activation.put(ITEM, JsonCel.toCel(bindings.item()));
            }
            if (readsIndex) {
                activation.put(INDEX, bindings.index());
            }
            if (!nodesRead.isEmpty()) {
                Map<String, Object> nodes = new HashMap<>(nodesRead.size() * 2);
                for (String id : nodesRead) {
                    NodeFacts facts = bindings.nodes() == null ? null : bindings.nodes().apply(id);
                    if (facts != null) {
                        Map<String, Object> node = new LinkedHashMap<>(8);
                        node.put("output", JsonCel.toCel(facts.output()));
                        node.put("state", text(facts.state()));
                        node.put("error", text(facts.error()));
                        node.put("attempts", (long) facts.attempts());
                        nodes.put(id, node);
                    }
                }
                activation.put(NODES, nodes);
            }
        } catch (RuntimeException e) {
            throw failed("its variables could not be read: " + e.getMessage());
        }
        return activation;
    }

    private static Object text(String value) {
        return value == null ? dev.cel.common.values.NullValue.NULL_VALUE : value;
    }

    /**
     * The message of a failed evaluation: this expression, what CEL said (a missing key as {@code no such key: k}),
     * and the values the failing step met (evaluated again with a trace, only now that it failed).
     */
    private String describe(CelEvaluationException e, Map<String, Object> activation) {
        String message = e.getMessage() == null ? "" : e.getMessage();
        Integer position = null;
        Matcher prefix = CEL_PREFIX.matcher(message);
        if (prefix.find()) {
            if (prefix.group(1) != null) {
                position = Integer.parseInt(prefix.group(1));
            }
            message = message.substring(prefix.end());
        }
        CelErrorCode code = e.getErrorCode();
        if (code == CelErrorCode.ATTRIBUTE_NOT_FOUND) {
            Matcher missing = MISSING_KEY.matcher(message);
            Matcher field = NOT_A_MAP.matcher(message);
            message = missing.matches() ? "no such key: " + missing.group(1)
                    : field.find() ? "cannot read field '" + field.group(1) + "' of a value that is not a map"
                    : "no such key: " + message;
        } else if (code == CelErrorCode.ITERATION_BUDGET_EXCEEDED) {
            message = "it exceeded the limit of " + CelEnvironment.MAX_ITERATIONS + " loop iterations";
        } else if (message.startsWith("No matching overload")) {
            message = "no matching overload" + message.substring("No matching overload".length());
        }
        String context = position == null ? "" : context(position, activation);
        return "expression '" + source + "' failed: " + message + (context.isEmpty() ? "" : " (" + context + ")");
    }

    /** What the operands of the step at {@code position} were: {@code nodes.charge.output was {...}}. */
    private String context(int position, Map<String, Object> activation) {
        try {
            List<CelExpr> operands = operandsAt(position);
            if (operands.isEmpty()) {
                return "";
            }
            Map<Long, Object> values = new HashMap<>();
            try {
                program.trace(activation, (expr, value) -> values.put(expr.id(), value));
            } catch (CelEvaluationException | RuntimeException expected) {
                // It fails again, as it did: the values evaluated up to the failure are what we want.
            }
            List<String> parts = new ArrayList<>();
            for (CelExpr operand : operands) {
                boolean nodes = operand.getKind() == CelExpr.ExprKind.Kind.IDENT && operand.ident().name().equals(NODES);
                if (nodes || operand.getKind() == CelExpr.ExprKind.Kind.CONSTANT || !values.containsKey(operand.id())) {
                    // nodes holds only what this expression reads: showing it would mislead.
                    continue;
                }
                Object value = values.get(operand.id());
                if (value instanceof Throwable || value instanceof CelUnknownSet) {
                    continue;
                }
                parts.add(text(operand) + " was " + JsonCel.excerpt(value, EXCERPT));
                if (parts.size() == 3) {
                    break;
                }
            }
            return String.join(", ", parts);
        } catch (RuntimeException | StackOverflowError ignored) {
            return "";
        }
    }

    /** The operands of the select or call CEL reported at {@code position}, the outermost first. */
    private List<CelExpr> operandsAt(int position) {
        Map<Long, Integer> positions = ast.getSource().getPositionsMap();
        Map<Long, CelExpr> all = new LinkedHashMap<>();
        collect(ast.getExpr(), all);
        for (CelExpr expr : all.values()) {
            Integer at = positions.get(expr.id());
            if (at == null || at != position) {
                continue;
            }
            if (expr.getKind() == CelExpr.ExprKind.Kind.SELECT) {
                return List.of(expr.select().operand());
            }
            if (expr.getKind() == CelExpr.ExprKind.Kind.CALL) {
                List<CelExpr> operands = new ArrayList<>();
                expr.call().target().ifPresent(operands::add);
                operands.addAll(expr.call().args());
                return operands;
            }
        }
        return List.of();
    }

    private static void collect(CelExpr expr, Map<Long, CelExpr> all) {
        all.put(expr.id(), expr);
        switch (expr.getKind()) {
            case SELECT -> collect(expr.select().operand(), all);
            case CALL -> {
                expr.call().target().ifPresent(target -> collect(target, all));
                expr.call().args().forEach(arg -> collect(arg, all));
            }
            case LIST -> expr.list().elements().forEach(element -> collect(element, all));
            case MAP -> expr.map().entries().forEach(entry -> {
                collect(entry.key(), all);
                collect(entry.value(), all);
            });
            case STRUCT -> expr.struct().entries().forEach(entry -> collect(entry.value(), all));
            case COMPREHENSION -> {
                var loop = expr.comprehension();
                for (CelExpr part : List.of(loop.iterRange(), loop.accuInit(), loop.loopCondition(), loop.loopStep(), loop.result())) {
                    collect(part, all);
                }
            }
            default -> {
            }
        }
    }

    /** The source text of a sub-expression, as CEL writes it back. */
    private String text(CelExpr expr) {
        try {
            return CelUnparserFactory.newUnparser().unparse(CelAbstractSyntaxTree.newParsedAst(expr, ast.getSource()));
        } catch (RuntimeException e) {
            return "a value";
        }
    }
}
