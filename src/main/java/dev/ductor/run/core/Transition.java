package dev.ductor.run.core;

/** One history row: a node's (or, with a null node, the run's) move, numbered gap-free per run. */
public record Transition(long seq, String node, String from, String to, String cause) {
}
