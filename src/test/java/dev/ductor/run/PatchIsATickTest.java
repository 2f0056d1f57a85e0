package dev.ductor.run;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Fixtures;
import dev.ductor.support.HttpApi;
import dev.ductor.support.ManualCoordination;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.UUID;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * An operator's PATCH goes through the same load, tick, commit shell as a coordinator's tick ({@link RunCommitter#tick}),
 * so what a tick does with the pending inbox it does too. With the coordinator off, only the PATCH ticks the run.
 */
@Tag("api")
@QuarkusTest
@TestProfile(ManualCoordination.class)
class PatchIsATickTest {

    private static final String PARKED = "{\"nodes\":[{\"id\":\"approve\",\"type\":\"signal\",\"signal\":\"approve\"}]}";

    @Inject
    DevTokenIssuer issuer;

    @Inject
    Fixtures fixtures;

    @Test
    void aTierPatchDropsASignalNoNodeCanWaitForAsACoordinatorTickDoes() {
        HttpApi api = new HttpApi(issuer);
        String runId = api.start(api.define(PARKED));
        api.as("client").body("{\"name\":\"nobody\",\"idempotencyKey\":\"k1\"}")
                .post("/api/v1/runs/{id}/signals", runId).then().statusCode(202);

        api.as("operator").header("If-Match", api.run(runId).header("ETag")).body("{\"tier\":\"bulk\"}")
                .patch("/api/v1/runs/{id}", runId).then().statusCode(200);

        assertEquals(0, fixtures.count("SELECT count(*) FROM eec_run_inbox WHERE run_id = ?1 AND consumed_at IS NULL",
                UUID.fromString(runId)), "the signal no node waits for is dropped, as a coordinator tick drops it");
        assertEquals("bulk", api.run(runId).path("tier"));
        assertEquals("WAITING", api.run(runId).path("nodes.approve.state"));
    }
}
