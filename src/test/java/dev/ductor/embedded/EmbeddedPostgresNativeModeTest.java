package dev.ductor.embedded;

import io.quarkus.runtime.ImageMode;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The embedded PostgreSQL is JVM-only. In a native executable the factory must either supply nothing (a URL is
 * configured, or {@code ductor.embedded.enabled=false} as the native Dockerfile sets) or stop the start-up with a
 * message that says what to set. Plain JUnit: the image mode is a parameter, nothing is started.
 */
@Tag("db")
class EmbeddedPostgresNativeModeTest {

    @Test
    void aNativeExecutableWithoutAUrlAndWithTheEmbeddedServerOnRefusesToStartAndSaysWhatToSet() {
        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> EmbeddedPostgresConfigSourceFactory.sources(context(Map.of()), ImageMode.NATIVE_RUN));
        assertTrue(refused.getMessage().contains("QUARKUS_DATASOURCE_JDBC_URL"), refused.getMessage());
        assertTrue(refused.getMessage().contains("DUCTOR_EMBEDDED_ENABLED=false"), refused.getMessage());
    }

    @Test
    void aNativeExecutableWithTheEmbeddedServerOffGetsNothingFromTheFactory() {
        assertEquals(List.of(), EmbeddedPostgresConfigSourceFactory.sources(
                context(Map.of("ductor.embedded.enabled", "false")), ImageMode.NATIVE_RUN));
    }

    @Test
    void aNativeExecutableWithAUrlGetsNothingFromTheFactory() {
        assertEquals(List.of(), EmbeddedPostgresConfigSourceFactory.sources(
                context(Map.of("quarkus.datasource.jdbc.url", "jdbc:postgresql://db:5432/ductor")), ImageMode.NATIVE_RUN));
    }

    /** Unchanged on the JVM: the lazy source, which starts nothing until the URL is read at run time. */
    @Test
    void theJvmStillGetsTheLazyEmbeddedSource() {
        List<ConfigSource> sources = EmbeddedPostgresConfigSourceFactory.sources(context(Map.of()), ImageMode.JVM);
        assertEquals(1, sources.size());
        assertInstanceOf(LazyEmbeddedPostgresSource.class, sources.get(0));
    }

    private static ConfigSourceContext context(Map<String, String> values) {
        return new ConfigSourceContext() {
            @Override
            public ConfigValue getValue(String name) {
                String value = values.get(name);
                return value == null ? null : ConfigValue.builder().withName(name).withValue(value).build();
            }

            @Override
            public Iterator<String> iterateNames() {
                return values.keySet().iterator();
            }
        };
    }
}
