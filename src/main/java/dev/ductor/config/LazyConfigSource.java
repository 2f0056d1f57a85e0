package dev.ductor.config;

import io.quarkus.runtime.ExecutionMode;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.Set;

/**
 * A config source whose values cost something to produce (an embedded database started, a key pair written), so it
 * produces them only when an application reads them. Quarkus also reads every property while it augments the
 * application at build time (execution mode still UNSET then); answering nothing there keeps {@code mvn package} from
 * doing that work, and keeps these values out of the configuration the build records into the application. Its
 * ordinal is below application.properties (250), so anything a user configures still wins.
 */
public abstract class LazyConfigSource implements ConfigSource {

    private final String name;
    private final Set<String> names;

    protected LazyConfigSource(String name, Set<String> names) {
        this.name = name;
        this.names = names;
    }

    /** The value of one of this source's properties, read by a starting application. */
    protected abstract String valueAtRuntime(String propertyName);

    @Override
    public final String getValue(String propertyName) {
        return ExecutionMode.current() == ExecutionMode.UNSET ? null : valueAtRuntime(propertyName);
    }

    @Override
    public Set<String> getPropertyNames() {
        return names;
    }

    @Override
    public String getName() {
        return name;
    }

    @Override
    public int getOrdinal() {
        return 240;
    }
}
