package dev.ductor.run.command;

import java.util.List;

/**
 * What a reset reopens: the nodes {@code fromNodes} (and everything downstream of them), or, with {@code failedOnly},
 * every node that FAILED or was CANCELLED. {@code toCurrentRevision} moves the run to the workflow's current revision;
 * {@code reopenSucceeded} is the caller saying that a SUCCEEDED run is meant.
 */
public record RunReset(List<String> fromNodes, boolean failedOnly, boolean toCurrentRevision, boolean reopenSucceeded) {
}
