package dev.ductor.security;

import io.quarkus.runtime.StartupEvent;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import jakarta.enterprise.context.ApplicationScoped;
import dev.ductor.config.StartupOrder;
import jakarta.annotation.Priority;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Prints and saves one ready-to-use bearer token per role at start-up, so that a fresh clone can call
 * the API at once without an identity provider. The tokens are signed with the dev key that
 * {@link DevKeyConfigSourceFactory} supplies, so no other deployment accepts them.
 */
@ApplicationScoped
public class DevTokenIssuer {

    static final String ENABLED = "ductor.dev-tokens.enabled";
    static final String DIR = "ductor.dev-tokens.dir";
    static final String LIFETIME = "ductor.dev-tokens.lifetime";
    static final String DEFAULT_DIR = ".ductor";

    public static final String DEMO_TENANT = "demo";
    public static final List<String> ROLES = List.of("admin", "operator", "client", "worker");

    /**
     * A working day with room to spare, short enough that a leaked dev token soon expires on its own; every start
     * issues new ones, so a restart is all it takes to get fresh tokens.
     */
    static final Duration DEFAULT_LIFETIME = Duration.ofHours(12);
    private static final Logger LOG = Logger.getLogger(DevTokenIssuer.class);

    @ConfigProperty(name = ENABLED, defaultValue = "false")
    boolean enabled;

    @ConfigProperty(name = DIR, defaultValue = DEFAULT_DIR)
    Path dir;

    @ConfigProperty(name = LIFETIME, defaultValue = "12h")
    Duration lifetime = DEFAULT_LIFETIME;

    @ConfigProperty(name = "quarkus.http.host", defaultValue = "0.0.0.0")
    String httpHost;

    @Inject Config config;

    /** The tokens issued at start-up, by role; empty when none were (dev tokens off, or a real key configured). */
    private final Map<String, String> issued = new LinkedHashMap<>();

    void onStart(@Observes @Priority(StartupOrder.BEFORE_LOOPS) StartupEvent event) {
        if (!enabled) {
            return;
        }
        if (!DevKeySource.NAME.equals(config.getConfigValue(JwtSettings.SIGN_KEY_LOCATION).getSourceName())) {
            LOG.info("Ductor dev tokens not issued: a JWT verification key is configured, so the dev key is not in use");
            return;
        }
        Path tokenDir = dir.resolve("dev-tokens");
        for (String role : ROLES) {
            String token = mint(role, DEMO_TENANT);
            LOG.infof("Ductor dev token role=%s tenant=%s: %s", role, DEMO_TENANT, token);
            write(tokenDir.resolve(role + ".jwt"), token);
            issued.put(role, token);
        }
        if (!Loopback.isLoopbackBinding(httpHost)) {
            LOG.warnf("Ductor listens on %s, not on loopback only, while dev tokens are enabled: anyone who can reach this"
                    + " address can use a leaked dev token. /api/v1/dev-tokens still answers callers on this machine only."
                    + " Bind to 127.0.0.1 (quarkus.http.host) or configure a real verification key and"
                    + " ductor.dev-tokens.enabled=false", httpHost);
        }
    }

    /**
     * The tokens this pod issued at start-up for tenant {@value #DEMO_TENANT}, by role (the console's dev sign-in);
     * empty unless {@code ductor.dev-tokens.enabled} is true and the dev key is the one in use.
     */
    public Map<String, String> issued() {
        return Map.copyOf(issued);
    }

    /** A dev token with one role; tests use it for tenants other than {@value #DEMO_TENANT}. */
    public String mint(String role, String tenant) {
        return mint(List.of(role), tenant);
    }

    /**
     * A dev token for subject {@code dev-<roles joined by '-'>} holding all the given roles; for the configured audience,
     * if one is ({@code mp.jwt.verify.audiences}), so dev tokens keep working where audiences are checked.
     */
    public String mint(Collection<String> roles, String tenant) {
        return mint("dev-" + String.join("-", roles), roles, tenant);
    }

    /** As {@link #mint(Collection, String)}, for a subject of the caller's choosing (tests of per-caller bounds). */
    public String mint(String subject, Collection<String> roles, String tenant) {
        JwtClaimsBuilder token = Jwt.issuer(JwtSettings.DEV_ISSUER)
                .subject(subject)
                .upn(subject)
                .groups(Set.copyOf(roles))
                .claim(CallerContext.TENANT_CLAIM, tenant)
                .expiresIn(lifetime == null ? DEFAULT_LIFETIME : lifetime);
        config.getOptionalValues(JwtSettings.VERIFY_AUDIENCES, String.class).ifPresent(audiences -> token.audience(Set.copyOf(audiences)));
        return token.sign();
    }

    private static void write(Path file, String token) {
        try {
            OwnerOnlyFile.write(file, token);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write the dev token " + file.toAbsolutePath(), e);
        }
    }
}
