package dev.ductor.worker.egress;

import dev.ductor.config.DuctorConfig;
import dev.ductor.config.StartupOrder;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;

import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * This pod's {@link HttpSettings}, from {@code ductor.http.*}. The pod's own ports are read when the first step calls
 * out, not at injection: by then the server listens, and a port chosen at random (tests) is known.
 */
@ApplicationScoped
public class PodHttpSettings {

    @Inject DuctorConfig config;
    @Inject Config raw;

    private volatile HttpSettings settings;

    /** A malformed allow or deny entry stops the start, naming the setting, rather than failing every http step later. */
    void validate(@Observes @Priority(StartupOrder.BEFORE_LOOPS) StartupEvent event) {
        DuctorConfig.Http http = config.http();
        EgressPolicy.of(http.allow().orElse(List.of()), http.deny().orElse(List.of()), Set.of(), address -> false);
    }

    public HttpSettings get() {
        HttpSettings current = settings;
        if (current == null) {
            DuctorConfig.Http http = config.http();
            current = new HttpSettings(
                    EgressPolicy.of(http.allow().orElse(List.of()), http.deny().orElse(List.of()), ownPorts(), PodHttpSettings::isOwnAddress),
                    http.maxTime(), http.maxResponseBytes(), http.secrets());
            settings = current;
        }
        return current;
    }

    private Set<Integer> ownPorts() {
        Set<Integer> ports = new HashSet<>();
        for (String key : List.of("quarkus.http.port", "quarkus.http.ssl-port", "quarkus.http.test-port",
                "quarkus.http.test-ssl-port", "quarkus.management.port")) {
            raw.getOptionalValue(key, Integer.class).ifPresent(ports::add);
            Optional.ofNullable(System.getProperty(key)).map(PodHttpSettings::port).ifPresent(ports::add);
        }
        ports.remove(0);
        return ports;
    }

    private static Integer port(String value) {
        try {
            return Integer.valueOf(value.strip());
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Loopback, the any-address, or an address of one of this machine's interfaces. */
    private static boolean isOwnAddress(InetAddress address) {
        if (address.isLoopbackAddress() || address.isAnyLocalAddress()) {
            return true;
        }
        try {
            return NetworkInterface.getByInetAddress(address) != null;
        } catch (SocketException e) {
            return true; // cannot tell: treat as ours, the safe side
        }
    }
}
