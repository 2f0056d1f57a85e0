package dev.ductor.run.core;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

/**
 * When a finished run may be deleted: it is finished and its period has passed since it finished (its last commit),
 * a zero period meaning never. A run belongs to a tree (a top-level run and the child runs its {@code workflow} nodes
 * started, to any depth), and trees go whole: a tree is deleted only when every run of it has expired, so a child
 * outlives its period while its parent or a sibling still lives, and a parent is never deleted from under a child.
 */
public final class RetentionPolicy {

    private RetentionPolicy() {
    }

    /** One run of a tree as the decision needs it: its status, when it last committed, and its revision's period. */
    public record Member(RunStatus status, Instant finishedAt, Duration period) {
    }

    public static boolean expired(Member run, Instant now) {
        return run.status().isTerminal() && !run.period().isZero() && !run.finishedAt().plus(run.period()).isAfter(now);
    }

    /** Whether a whole tree may go: it has members, and every one of them has expired. */
    public static boolean treeExpired(List<Member> tree, Instant now) {
        return !tree.isEmpty() && tree.stream().allMatch(member -> expired(member, now));
    }
}
