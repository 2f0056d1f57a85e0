package dev.ductor.workflow.expr;

import com.fasterxml.jackson.databind.JsonNode;

/** What an expression sees of one node as {@code nodes.<id>}: {@code state}, {@code output}, {@code error}, {@code attempts}. */
public record NodeFacts(String state, JsonNode output, String error, int attempts) {
}
