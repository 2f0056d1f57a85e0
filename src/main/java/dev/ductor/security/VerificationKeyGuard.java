package dev.ductor.security;

import io.quarkus.runtime.ExecutionMode;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.configuration.ConfigurationException;
import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import org.eclipse.microprofile.config.spi.ConfigSource;

import java.util.List;

/**
 * Refuses to start a packaged Ductor that could verify no bearer token: without a key every API call
 * would fail with 401, which looks like a client bug rather than a missing setting.
 *
 * <p>Checked while the runtime configuration is built, before anything starts: a config source factory is the one
 * hook an application has that runs before the embedded PostgreSQL (started when the datasource URL is first read),
 * Flyway, Hibernate and the coordinator loops. It supplies no source; it only refuses. Quarkus prints a
 * {@link ConfigurationException} as its message alone and exits 1.
 *
 * <p>Checked for every profile of a packaged run ({@link LaunchMode#NORMAL}: prod, or any custom one); dev mode and
 * tests always have a key, the dev key or Quarkus' own generated one. Not for {@code quarkus.init-and-exit} (the
 * migration Job), which stops before it could serve a request.
 */
public class VerificationKeyGuard implements ConfigSourceFactory {

    static final String MISSING_KEY_MESSAGE = "No JWT verification key is configured, so Ductor could accept no bearer"
            + " token. Set mp.jwt.verify.publickey.location to a PEM public key file or to the JWKS URL of your"
            + " identity provider, and mp.jwt.verify.issuer to the issuer of its tokens (as environment variables:"
            + " MP_JWT_VERIFY_PUBLICKEY_LOCATION and MP_JWT_VERIFY_ISSUER). Only for a local trial:"
            + " ductor.dev-tokens.enabled=true uses a generated dev key and prints tokens for it.";

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        check(context, LaunchMode.current(), ExecutionMode.current());
        return List.of();
    }

    /** The decision, with the modes as parameters so that it is testable outside a packaged run. */
    static void check(ConfigSourceContext context, LaunchMode launchMode, ExecutionMode executionMode) {
        // UNSET: the build reading every property, not an application starting.
        if (launchMode != LaunchMode.NORMAL || executionMode == ExecutionMode.UNSET) {
            return;
        }
        if (Boolean.parseBoolean(value(context, DevTokenIssuer.ENABLED)) || Boolean.parseBoolean(value(context, "quarkus.init-and-exit"))) {
            return;
        }
        if (!JwtSettings.verificationKeyConfigured(name -> value(context, name))) {
            dropStartupNoise();
            throw new ConfigurationException(MISSING_KEY_MESSAGE);
        }
    }

    /**
     * Logging is not set up yet at this point: Quarkus would print everything logged so far (Hibernate's and Hibernate
     * Validator's version and pool notes, a dozen lines) raw before the message. Hands the records held back until
     * logging is set up to a console handler that shows only warnings and errors, so the message stands alone.
     */
    private static void dropStartupNoise() {
        try {
            io.quarkus.bootstrap.logging.QuarkusDelayedHandler held = io.quarkus.bootstrap.logging.InitialConfigurator.DELAYED_HANDLER;
            if (!held.isActivated()) {
                java.util.logging.ConsoleHandler console = new java.util.logging.ConsoleHandler();
                console.setLevel(java.util.logging.Level.WARNING);
                held.setHandlers(new java.util.logging.Handler[] {console});
            }
        } catch (LinkageError | RuntimeException internalsChanged) {
            // Quarkus' start-up logging is internal: if it changed, the message still comes, with the noise before it.
        }
    }

    private static String value(ConfigSourceContext context, String name) {
        ConfigValue value = context.getValue(name);
        return value == null ? null : value.getValue();
    }
}
