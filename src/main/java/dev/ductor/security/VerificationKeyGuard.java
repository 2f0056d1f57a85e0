package dev.ductor.security;

import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.ConfigurationException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Inject;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Refuses to start a packaged Ductor that could verify no bearer token: without a key every API call
 * would fail with 401, which looks like a client bug rather than a missing setting.
 *
 * <p>Checked for every profile of a packaged run ({@link LaunchMode#NORMAL}: prod, or any custom one);
 * dev mode and tests always have a key, the dev key or Quarkus' own generated one.
 */
@ApplicationScoped
public class VerificationKeyGuard {

    static final String MISSING_KEY_MESSAGE = "No JWT verification key is configured, so Ductor could accept no bearer"
            + " token. Set mp.jwt.verify.publickey.location to a PEM public key file or to the JWKS URL of your"
            + " identity provider, and mp.jwt.verify.issuer to the issuer of its tokens (as environment variables:"
            + " MP_JWT_VERIFY_PUBLICKEY_LOCATION and MP_JWT_VERIFY_ISSUER). Only for a local trial:"
            + " ductor.dev-tokens.enabled=true uses a generated dev key and prints tokens for it.";

    @ConfigProperty(name = DevTokenIssuer.ENABLED, defaultValue = "false")
    boolean devTokensEnabled;

    @Inject
    Config config;

    void onStart(@Observes StartupEvent event) {
        if (LaunchMode.current() != LaunchMode.NORMAL || devTokensEnabled) {
            return;
        }
        if (!JwtSettings.verificationKeyConfigured(name -> config.getOptionalValue(name, String.class).orElse(null))) {
            throw new ConfigurationException(MISSING_KEY_MESSAGE);
        }
    }
}
