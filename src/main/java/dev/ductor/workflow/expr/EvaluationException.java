package dev.ductor.workflow.expr;

/**
 * An expression that compiled but failed on the values it met (a missing field, a wrong type, a cost limit). The
 * message names the expression and what it met, for the node's error; retrying cannot help, the same snapshot
 * gives the same failure.
 */
public class EvaluationException extends RuntimeException {

    public EvaluationException(String message) {
        super(message);
    }
}
