package dev.ductor.run;

import dev.ductor.error.PodStoppingException;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** A start that reaches a stopping pod is answered at once, 503 pod-stopping, and never waits for a committer. */
@Tag("unit")
class StartBatcherStoppingTest {

    @Test
    void aStartAfterShutdownIsRefusedAtOnce() {
        StartBatcher batcher = new StartBatcher(); // nothing injected: a stopped batcher must not touch the database
        batcher.stop(null);

        CompletableFuture<RunStarter.Started> answer = batcher.submit("t", "w", new StartRequest(null, null, "standard"));

        ExecutionException failed = assertThrows(ExecutionException.class, () -> answer.get(5, TimeUnit.SECONDS));
        PodStoppingException stopping = assertInstanceOf(PodStoppingException.class, failed.getCause());
        assertEquals(503, stopping.status());
        assertEquals("1", stopping.headers().get("Retry-After"));
        assertThrows(PodStoppingException.class, () -> batcher.start("t", "w", new StartRequest(null, null, "standard")),
                "the waiting form throws the refusal itself, not a CompletionException");
    }
}
