package dev.ductor.run.command;

import dev.ductor.run.InboxKind;
import dev.ductor.run.RunInbox;
import dev.ductor.run.commit.RunCommitter;
import dev.ductor.support.Fixtures;
import dev.ductor.support.ManualCoordination;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.OptionalLong;
import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An operator's PATCH goes through the same load, tick, commit shell as a coordinator's tick ({@link RunCommitter#tick}),
 * so what a tick does with the pending inbox it does too. With the coordinator off, only the PATCH ticks the run.
 */
@Tag("db")
@QuarkusTest
@TestProfile(ManualCoordination.class)
class PatchIsATickTest {

    private static final String TENANT = "patch-tick";
    private static final String PARKED = "{\"nodes\":[{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approve\"}]}";

    @Inject
    Fixtures fixtures;

    @Inject
    RunOperations operations;

    @Inject
    RunInbox inbox;

    @Test
    void aTierPatchDropsASignalNoNodeCanWaitForAsACoordinatorTickDoes() {
        UUID runId = fixtures.start(TENANT, fixtures.define(TENANT, PARKED));
        // The API refuses a signal the revision does not declare; one can still be pending when a run moves to another
        // revision (a reset with toRevision), so it is put in the inbox directly.
        io.quarkus.narayana.jta.QuarkusTransaction.requiringNew().run(() -> inbox.deliver(runId, InboxKind.SIGNAL, "signal:k1",
                null, null, null, "{\"name\":\"nobody\",\"payload\":{}}", java.time.Instant.now()));

        operations.patch(TENANT, runId, OptionalLong.of(fixtures.version(runId)), new RunPatch("bulk", Map.of()), null);

        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL", runId),
                "the signal no node waits for is dropped, as a coordinator tick drops it");
        assertEquals(1, fixtures.count("SELECT count(*) FROM eec_workflow_run WHERE run_id = ?1 AND tier = 'bulk'"
                + " AND node_states -> 'approve' ->> 'state' = 'WAITING'", runId), "the tier is changed, the node still waits");
    }
}
