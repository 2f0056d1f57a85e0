package dev.ductor.security;

import dev.ductor.config.LazyConfigSource;

import java.nio.file.Path;
import java.util.Set;

import static dev.ductor.security.JwtSettings.DEV_ISSUER;
import static dev.ductor.security.JwtSettings.NEW_TOKEN_ISSUER;
import static dev.ductor.security.JwtSettings.SIGN_KEY_LOCATION;
import static dev.ductor.security.JwtSettings.VERIFY_ISSUER;
import static dev.ductor.security.JwtSettings.VERIFY_KEY;
import static dev.ductor.security.JwtSettings.VERIFY_KEY_LOCATION;

/**
 * Points smallrye-jwt at the dev key pair, creating it when a key location is first read (never while the build
 * augments the application: {@link LazyConfigSource}).
 */
final class DevKeySource extends LazyConfigSource {

    static final String NAME = "ductor-dev-jwt-keys";
    private static final Set<String> NAMES =
            Set.of(VERIFY_KEY_LOCATION, VERIFY_KEY, VERIFY_ISSUER, SIGN_KEY_LOCATION, NEW_TOKEN_ISSUER);

    private final DevKeys keys;
    private volatile boolean keysExist;

    DevKeySource(DevKeys keys) {
        super(NAME, NAMES);
        this.keys = keys;
    }

    @Override
    protected String valueAtRuntime(String propertyName) {
        return switch (propertyName) {
            case VERIFY_KEY_LOCATION -> fileLocation(keys.publicKeyFile());
            // smallrye-jwt prefers an inline key to a location; NONE (its "unset") hides the in-memory key
            // Quarkus generates as a default in dev mode and tests, so tokens verify with the key that signed them.
            case VERIFY_KEY -> "NONE";
            case SIGN_KEY_LOCATION -> fileLocation(keys.privateKeyFile());
            case VERIFY_ISSUER, NEW_TOKEN_ISSUER -> DEV_ISSUER;
            default -> null;
        };
    }

    /** smallrye-jwt reads a {@code file:} location from the file system, never from the class path. */
    private String fileLocation(Path file) {
        if (!keysExist) {
            keys.ensureExist();
            keysExist = true;
        }
        return "file:" + file;
    }
}
