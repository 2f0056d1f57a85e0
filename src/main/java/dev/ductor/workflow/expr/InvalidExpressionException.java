package dev.ductor.workflow.expr;

import java.util.List;
import java.util.stream.Collectors;

/** A template or expression refused when a definition is saved; carries every problem found. */
public class InvalidExpressionException extends RuntimeException {

    private final List<ExpressionProblem> problems;

    public InvalidExpressionException(List<ExpressionProblem> problems) {
        super(problems.stream().map(p -> (p.path().isEmpty() ? "" : p.path() + ": ") + p.message())
                .collect(Collectors.joining("; ")));
        this.problems = List.copyOf(problems);
    }

    public List<ExpressionProblem> problems() {
        return problems;
    }
}
