package dev.ductor.security;

import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import org.eclipse.microprofile.jwt.JsonWebToken;

import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers bearer tokens smallrye-jwt has already verified, so a client (or worker) that sends the same token on
 * every request pays the signature check and the claims parsing once, not per request: that was most of the HTTP
 * event loop's time under load. Only an identical token string hits, and only while it has not expired and for at
 * most {@link #MAX_AGE_MILLIS} after it was verified, so a key rotated out stops working within that time. A token
 * that fails verification is never cached.
 *
 * <p>It is smallrye-jwt's own parser, by subclass: Quarkus' JWT validator injects {@code JWTParser}, which this
 * alternative now is, and every other way of parsing (with another context, key or secret) is the library's unchanged.
 * (A CDI decorator would be the textbook way, but ArC refuses application decorators on library beans.)
 */
@Alternative
@Priority(10)
@ApplicationScoped
public class VerifiedTokenCache extends DefaultJWTParser {

    /** How long a verification is trusted without repeating it. */
    static final long MAX_AGE_MILLIS = 60_000;
    /** Distinct tokens remembered; past it the cache starts over (tokens are few: one per client or worker). */
    static final int MAX_TOKENS = 10_000;

    private record Verified(JsonWebToken token, long trustedUntilMillis) {
    }

    private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        long now = System.currentTimeMillis();
        Verified hit = verified.get(token);
        if (hit != null && now < hit.trustedUntilMillis()) {
            return hit.token();
        }
        JsonWebToken parsed = verifyAnew(token);
        long expiresMillis = parsed.getExpirationTime() * 1000;
        long trustedUntil = Math.min(now + MAX_AGE_MILLIS, expiresMillis > 0 ? expiresMillis : now);
        if (trustedUntil > now) {
            if (verified.size() >= MAX_TOKENS) {
                verified.clear();
            }
            verified.put(token, new Verified(parsed, trustedUntil));
        }
        return parsed;
    }

    /** smallrye-jwt's own check of the signature and the claims. */
    JsonWebToken verifyAnew(String token) throws ParseException {
        return super.parse(token);
    }
}
