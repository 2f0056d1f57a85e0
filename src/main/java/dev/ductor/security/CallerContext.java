package dev.ductor.security;

import io.quarkus.security.identity.SecurityIdentity;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.ForbiddenException;
import org.eclipse.microprofile.jwt.JsonWebToken;

/** Who is calling, as the verified bearer token says: the tenant every query is scoped to, and the subject. */
@RequestScoped
public class CallerContext {

    /** The claim that names the caller's tenant, in dev tokens and in those of any identity provider. */
    public static final String TENANT_CLAIM = "tenant";

    // The request's identity, whose principal is the verified token itself. Read from there rather than by injecting
    // JsonWebToken: that is a request-scoped bean of its own, produced anew for every request, for one claim.
    @Inject SecurityIdentity identity;

    /** The {@code tenant} claim; a token without one may read and change nothing, hence 403. */
    public String tenant() {
        if (token().getClaim(TENANT_CLAIM) instanceof String tenant && !tenant.isBlank()) {
            return tenant;
        }
        throw new MissingTenantException();
    }

    public String subject() {
        return identity.getPrincipal() instanceof JsonWebToken token ? token.getSubject() : identity.getPrincipal().getName();
    }

    private JsonWebToken token() {
        if (identity.getPrincipal() instanceof JsonWebToken token) {
            return token;
        }
        throw new MissingTenantException(); // no bearer token, so no tenant claim either
    }

    /** The token is valid but names no tenant (a string {@code tenant} claim). */
    public static final class MissingTenantException extends ForbiddenException {
        public MissingTenantException() {
            super("The bearer token has no '" + TENANT_CLAIM + "' claim");
        }
    }
}
