package dev.ductor.security;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Base64;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The dev tokens this start wrote (tests run with dev tokens on, in target/ductor-test): files only their owner can
 * read, holding this start's tokens, which expire within hours rather than weeks.
 */
@QuarkusTest
@Tag("db")
class DevTokenFilesTest {

    private static final Path TOKENS = Path.of("target/ductor-test/dev-tokens");

    @Inject
    DevTokenIssuer issuer;

    @Test
    void eachRolesTokenFileIsReadableByItsOwnerOnly() throws Exception {
        for (String role : DevTokenIssuer.ROLES) {
            Path file = TOKENS.resolve(role + ".jwt");
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)), file.toString());
            assertEquals(issuer.issued().get(role), Files.readString(file, StandardCharsets.US_ASCII),
                    "the file holds the token this start issued");
        }
    }

    @Test
    void devTokensExpireWithinHours() throws Exception {
        for (String role : DevTokenIssuer.ROLES) {
            JsonNode claims = claims(issuer.issued().get(role));
            Duration lifetime = Duration.ofSeconds(claims.path("exp").asLong() - claims.path("iat").asLong());
            assertTrue(lifetime.compareTo(Duration.ofHours(12)) <= 0 && !lifetime.isNegative(), role + ": " + lifetime);
        }
        JsonNode minted = claims(issuer.mint("client", "other"));
        assertTrue(minted.path("exp").asLong() - minted.path("iat").asLong() <= Duration.ofHours(12).toSeconds());
    }

    private static JsonNode claims(String jwt) throws Exception {
        return new ObjectMapper().readTree(Base64.getUrlDecoder().decode(jwt.split("\\.")[1]));
    }
}
