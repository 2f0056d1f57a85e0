package dev.ductor.api;

import dev.ductor.error.NotFoundException;
import dev.ductor.security.DevTokenIssuer;
import dev.ductor.security.Loopback;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.net.SocketAddress;
import jakarta.annotation.security.PermitAll;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.media.Content;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

import java.util.Map;
import java.util.TreeMap;

/**
 * The console's dev sign-in: the tokens start-up already logged and wrote to {@code .ductor/dev-tokens/}, handed out
 * without a token, and only where {@code ductor.dev-tokens.enabled} is true (dev, tests, the embedded trial) and the
 * dev key is in use; anywhere else this route is a 404, as if it did not exist. It answers callers on this machine only
 * (a loopback address, whatever address the server listens on): from anywhere else it is a 404 too, since these
 * tokens include an admin's. {@code @PermitAll} because unannotated endpoints are denied: the route walk lists it as
 * the one open route under /api/v1.
 */
@Tag(name = "Dev tokens", description = "The dev sign-in tokens (dev and trial only)")
@Path("/api/v1/dev-tokens")
@Produces(MediaType.APPLICATION_JSON)
@PermitAll
@APIResponse(responseCode = "404", ref = "dev-tokens-off")
public class DevTokenResource {

    @Inject
    DevTokenIssuer issuer;

    public record DevTokens(String tenant, Map<String, String> tokens) {
    }

    @GET
    @Operation(operationId = "getDevTokens")
    @APIResponse(responseCode = "200", description = "A token per role (admin, operator, client, worker)",
            content = @Content(schema = @Schema(implementation = DevTokens.class)))
    public DevTokens get(@Context HttpServerRequest request) {
        Map<String, String> issued = issuer.issued();
        if (issued.isEmpty()) {
            throw new NotFoundException("Dev tokens", DevTokenIssuer.DEMO_TENANT);
        }
        SocketAddress caller = request == null ? null : request.remoteAddress();
        if (!Loopback.isLoopbackCaller(caller == null ? null : caller.hostAddress())) {
            throw new NotFoundException("Dev tokens are handed out to callers on this machine (loopback) only; read them"
                    + " from the server's log or its .ductor/dev-tokens/ directory instead");
        }
        return new DevTokens(DevTokenIssuer.DEMO_TENANT, new TreeMap<>(issued));
    }
}
