package dev.ductor.config;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import java.net.InetAddress;

/** This process's name in lease owners and logs: {@code ductor.pod-name}, else host name and pid. */
@ApplicationScoped
public class PodIdentity {

    private final String name;

    @Inject
    public PodIdentity(DuctorConfig config) {
        this.name = config.podName().orElseGet(PodIdentity::hostAndPid);
    }

    public String name() {
        return name;
    }

    private static String hostAndPid() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "unknown";
        }
        return host + ":" + ProcessHandle.current().pid();
    }
}
