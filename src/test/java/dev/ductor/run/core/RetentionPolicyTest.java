package dev.ductor.run.core;

import dev.ductor.run.core.RetentionPolicy.Member;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Tag("unit")
class RetentionPolicyTest {

    private static final Instant FINISHED = Instant.parse("2026-12-01T10:00:00Z");
    private static final Duration DAY = Duration.ofDays(1);

    @Test
    void aFinishedRunExpiresWhenItsPeriodHasPassedSinceItFinished() {
        for (RunStatus status : List.of(RunStatus.SUCCEEDED, RunStatus.FAILED, RunStatus.CANCELLED)) {
            Member run = new Member(status, FINISHED, DAY);
            assertFalse(RetentionPolicy.expired(run, FINISHED.plus(DAY).minusMillis(1)), status + " within its day");
            assertTrue(RetentionPolicy.expired(run, FINISHED.plus(DAY)), status + " at the end of its day");
        }
    }

    @Test
    void aRunningRunNeverExpiresHoweverOld() {
        assertFalse(RetentionPolicy.expired(new Member(RunStatus.RUNNING, FINISHED, DAY), FINISHED.plus(Duration.ofDays(3650))));
    }

    @Test
    void aZeroPeriodKeepsForever() {
        assertFalse(RetentionPolicy.expired(new Member(RunStatus.SUCCEEDED, FINISHED, Duration.ZERO), FINISHED.plus(Duration.ofDays(3650))));
    }

    @Test
    void aTreeGoesOnlyWhenEveryRunOfItHasExpired() {
        Instant now = FINISHED.plus(Duration.ofDays(2));
        Member expiredParent = new Member(RunStatus.SUCCEEDED, FINISHED, DAY);
        Member expiredChild = new Member(RunStatus.FAILED, FINISHED, DAY);
        assertTrue(RetentionPolicy.treeExpired(List.of(expiredParent, expiredChild), now));
        assertFalse(RetentionPolicy.treeExpired(List.of(new Member(RunStatus.RUNNING, FINISHED, DAY), expiredChild), now),
                "a running parent keeps its finished child");
        assertFalse(RetentionPolicy.treeExpired(List.of(expiredParent, new Member(RunStatus.SUCCEEDED, FINISHED, Duration.ofDays(7))), now),
                "a child with a longer period keeps its parent");
        assertFalse(RetentionPolicy.treeExpired(List.of(), now), "an empty tree is no tree");
    }
}
