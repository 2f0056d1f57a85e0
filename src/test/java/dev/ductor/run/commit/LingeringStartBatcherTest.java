package dev.ductor.run.commit;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import org.junit.jupiter.api.Tag;

import java.util.HashMap;
import java.util.Map;

/**
 * {@link StartBatcherTest}'s races again with {@code ductor.starts.linger} set: a group that follows a shared one
 * waits, under the batcher's lock, for more starts to join it, and every start is still answered as a start of its
 * own would be.
 */
@QuarkusTest
@TestProfile(LingeringStartBatcherTest.LingeringStarts.class)
@Tag("db")
class LingeringStartBatcherTest extends StartBatcherTest {

    /** {@link StartBatcherTest.HeldStarts} with a start linger long enough that racing starts queue behind it. */
    public static class LingeringStarts extends StartBatcherTest.HeldStarts {

        @Override
        public Map<String, String> getConfigOverrides() {
            Map<String, String> overrides = new HashMap<>(super.getConfigOverrides());
            overrides.put("ductor.starts.linger", "20ms");
            return overrides;
        }
    }
}
