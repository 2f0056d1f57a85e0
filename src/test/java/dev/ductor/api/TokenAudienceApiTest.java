package dev.ductor.api;

import dev.ductor.security.DevTokenIssuer;
import dev.ductor.support.Api;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.smallrye.jwt.build.Jwt;
import io.smallrye.jwt.build.JwtClaimsBuilder;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Set;

import static io.restassured.RestAssured.given;

/**
 * With an audience configured ({@code mp.jwt.verify.audiences}), a token the same identity provider issued to another
 * application is refused, though its signature, issuer, roles and tenant are all fine.
 */
@QuarkusTest
@TestProfile(TokenAudienceApiTest.AudienceChecked.class)
@Tag("api")
class TokenAudienceApiTest {

    public static class AudienceChecked implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("mp.jwt.verify.audiences", "ductor-api");
        }
    }

    @Inject
    DevTokenIssuer issuer;

    private static JwtClaimsBuilder client() {
        return Jwt.issuer("ductor-dev").subject("app").upn("app").groups(Set.of("client")).claim("tenant", Api.unique("t"))
                .expiresIn(3600);
    }

    private static io.restassured.response.Response list(String token) {
        return given().header("Authorization", "Bearer " + token).get("/api/v1/workflows");
    }

    @Test
    void aTokenForAnotherApplicationIs401() {
        Api.problem(list(client().audience("billing").sign()), 401);
        Api.problem(list(client().audience(Set.of("billing", "crm")).sign()), 401);
    }

    @Test
    void aTokenWithoutAnAudienceIs401() {
        Api.problem(list(client().sign()), 401);
    }

    @Test
    void aTokenForDuctorIsServed() {
        list(client().audience("ductor-api").sign()).then().statusCode(200);
        list(client().audience(Set.of("billing", "ductor-api")).sign()).then().statusCode(200);
    }

    @Test
    void devTokensCarryTheConfiguredAudience() {
        list(issuer.mint("client", Api.unique("t"))).then().statusCode(200);
    }
}
