package dev.ductor.security;

import java.util.function.UnaryOperator;
import java.util.stream.Stream;

/** The MicroProfile JWT / smallrye-jwt settings Ductor supplies or checks, and what counts as "configured". */
final class JwtSettings {

    static final String VERIFY_KEY_LOCATION = "mp.jwt.verify.publickey.location";
    static final String VERIFY_KEY = "mp.jwt.verify.publickey";
    /** smallrye-jwt's own alias of {@link #VERIFY_KEY_LOCATION}; a key given this way is just as configured. */
    static final String SMALLRYE_VERIFY_KEY_LOCATION = "smallrye.jwt.verify.key.location";
    static final String VERIFY_ISSUER = "mp.jwt.verify.issuer";
    /** Optional: when set, a token must name one of these in its {@code aud} claim (docs/operations.md). */
    static final String VERIFY_AUDIENCES = "mp.jwt.verify.audiences";
    static final String SIGN_KEY_LOCATION = "smallrye.jwt.sign.key.location";
    static final String NEW_TOKEN_ISSUER = "smallrye.jwt.new-token.issuer";

    static final String DEV_ISSUER = "ductor-dev";

    private JwtSettings() {
    }

    /** True when some verification key is set; smallrye-jwt reads the literal {@code NONE} as unset, so do we. */
    static boolean verificationKeyConfigured(UnaryOperator<String> lookup) {
        return Stream.of(VERIFY_KEY_LOCATION, VERIFY_KEY, SMALLRYE_VERIFY_KEY_LOCATION)
                .map(lookup)
                .anyMatch(value -> value != null && !value.isBlank() && !"NONE".equals(value.trim()));
    }
}
