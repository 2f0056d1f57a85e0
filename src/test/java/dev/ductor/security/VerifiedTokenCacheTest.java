package dev.ductor.security;

import io.smallrye.jwt.auth.principal.ParseException;
import org.eclipse.microprofile.jwt.JsonWebToken;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The verified-token cache, over a verifier that counts what it is asked to verify. */
@Tag("unit")
class VerifiedTokenCacheTest {

    /** Verifies nothing, answers a token expiring at {@code expiresAt} (epoch seconds), or refuses {@code "bad"}. */
    private static final class CountingCache extends VerifiedTokenCache {
        final List<String> verified = new ArrayList<>();
        long expiresAt = System.currentTimeMillis() / 1000 + 3600;

        @Override
        JsonWebToken verifyAnew(String token) throws ParseException {
            verified.add(token);
            if (token.equals("bad")) {
                throw new ParseException("signature does not verify");
            }
            long exp = expiresAt;
            return new JsonWebToken() {
                @Override
                public String getName() {
                    return token;
                }

                @Override
                public Set<String> getClaimNames() {
                    return Set.of("exp");
                }

                @SuppressWarnings("unchecked")
                @Override
                public <T> T getClaim(String name) {
                    return "exp".equals(name) ? (T) Long.valueOf(exp) : null;
                }
            };
        }
    }

    private final CountingCache cache = new CountingCache();

    @Test
    void theSameTokenIsVerifiedOnceAndAnsweredFromTheCacheAfterwards() throws Exception {
        JsonWebToken first = cache.parse("a");
        assertSame(first, cache.parse("a"));
        assertSame(first, cache.parse("a"));
        cache.parse("b");
        assertEquals(List.of("a", "b"), cache.verified);
    }

    @Test
    void aTokenThatFailsVerificationIsRefusedEveryTime() {
        assertThrows(ParseException.class, () -> cache.parse("bad"));
        assertThrows(ParseException.class, () -> cache.parse("bad"));
        assertEquals(List.of("bad", "bad"), cache.verified);
    }

    @Test
    void anAlreadyExpiredTokenIsNeverTrustedFromTheCache() throws Exception {
        cache.expiresAt = System.currentTimeMillis() / 1000 - 1;
        cache.parse("old");
        cache.parse("old");
        assertEquals(List.of("old", "old"), cache.verified, "each use goes back to the verifier, which refuses it");
    }
}
