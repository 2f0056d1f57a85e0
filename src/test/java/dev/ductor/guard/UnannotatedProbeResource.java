package dev.ductor.guard;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;

/**
 * A JAX-RS endpoint with no security annotation at all, served only by the tests: it stands for the route someone
 * adds tomorrow and forgets to annotate. Deny-by-default must answer it 401 like every other route
 * ({@link AnonymousRouteWalkTest}). Hidden from the OpenAPI document, which lists only the real API.
 */
@Path("/api/v1/test-probes/unannotated")
public class UnannotatedProbeResource {

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    @Operation(hidden = true)
    public String open() {
        return "anyone may read this";
    }
}
