package dev.ductor.security;

import io.smallrye.jwt.auth.principal.DefaultJWTParser;
import io.smallrye.jwt.auth.principal.JWTAuthContextInfo;
import io.smallrye.jwt.auth.principal.JWTParser;
import io.smallrye.jwt.auth.principal.ParseException;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Alternative;
import jakarta.inject.Inject;
import org.eclipse.microprofile.jwt.JsonWebToken;

import javax.crypto.SecretKey;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remembers bearer tokens smallrye-jwt has already verified, so a client (or worker) that sends the same token on
 * every request pays the signature check and the claims parsing once, not per request: that was most of the HTTP
 * event loop's time under load. Only an identical token string hits, and only while it has not expired and for at
 * most {@link #MAX_AGE_MILLIS} after it was verified, so a key rotated out stops working within that time. A token
 * that fails verification is never cached.
 */
@Alternative
@Priority(10)
@ApplicationScoped
public class VerifiedTokenCache implements JWTParser {

    /** How long a verification is trusted without repeating it. */
    static final long MAX_AGE_MILLIS = 60_000;
    /** Distinct tokens remembered; past it the cache starts over (tokens are few: one per client or worker). */
    static final int MAX_TOKENS = 10_000;

    private record Verified(JsonWebToken token, long trustedUntilMillis) {
    }

    private final ConcurrentHashMap<String, Verified> verified = new ConcurrentHashMap<>();

    // smallrye-jwt's own parser, by its class: Quarkus' JWT validator injects JWTParser, which is now this bean.
    // (A CDI decorator would be the textbook way, but ArC refuses application decorators on library beans.)
    @Inject DefaultJWTParser delegate;

    @Override
    public JsonWebToken parse(String token) throws ParseException {
        long now = System.currentTimeMillis();
        Verified hit = verified.get(token);
        if (hit != null && now < hit.trustedUntilMillis()) {
            return hit.token();
        }
        JsonWebToken parsed = delegate.parse(token);
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

    @Override
    public JsonWebToken parse(String token, JWTAuthContextInfo context) throws ParseException {
        return delegate.parse(token, context);
    }

    @Override
    public JsonWebToken verify(String token, PublicKey key) throws ParseException {
        return delegate.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, SecretKey key) throws ParseException {
        return delegate.verify(token, key);
    }

    @Override
    public JsonWebToken verify(String token, String secret) throws ParseException {
        return delegate.verify(token, secret);
    }

    @Override
    public JsonWebToken decrypt(String token, PrivateKey key) throws ParseException {
        return delegate.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, SecretKey key) throws ParseException {
        return delegate.decrypt(token, key);
    }

    @Override
    public JsonWebToken decrypt(String token, String secret) throws ParseException {
        return delegate.decrypt(token, secret);
    }

    @Override
    public JsonWebToken parseOnly(String token) throws ParseException {
        return delegate.parseOnly(token);
    }
}
