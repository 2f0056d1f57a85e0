package dev.ductor.workflow.expr;

/** What an expression sees of its run as {@code run}: {@code run.id}, {@code run.workflow}, {@code run.revision}. */
public record RunFacts(String id, String workflow, int revision) {
}
