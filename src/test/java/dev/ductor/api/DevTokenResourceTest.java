package dev.ductor.api;

import dev.ductor.error.NotFoundException;
import dev.ductor.security.DevTokenIssuer;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * The dev sign-in route where dev tokens are off (production): an issuer that issued nothing makes it a 404, as if the
 * route did not exist. The open 200 in tests is checked by AnonymousRouteWalkTest against the running app.
 */
@Tag("unit")
class DevTokenResourceTest {

    @Test
    void withoutIssuedDevTokensTheRouteIsNotFound() {
        DevTokenResource resource = new DevTokenResource();
        resource.issuer = new DevTokenIssuer(); // never started: dev tokens off, nothing issued
        NotFoundException notFound = assertThrows(NotFoundException.class, () -> resource.get(null));
        assertEquals(404, notFound.status());
    }
}
