package dev.ductor.api;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.response.Response;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.SocketException;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

/**
 * The dev sign-in hands out the admin token without authentication, so it answers callers on this machine only,
 * whatever address the server listens on. Here it listens on every interface, and the test calls it once through
 * loopback and once through this machine's own non-loopback address, as another host on the network would.
 */
@QuarkusTest
@TestProfile(DevTokensLoopbackOnlyTest.EveryInterface.class)
@Tag("api")
class DevTokensLoopbackOnlyTest {

    /** Listens on 0.0.0.0, as the embedded profile did before it bound to loopback. */
    public static class EveryInterface implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("quarkus.http.host", "0.0.0.0");
        }
    }

    @Test
    void aCallerOnThisMachineGetsTheTokens() {
        Response response = given().baseUri("http://127.0.0.1").port(RestAssured.port).get("/api/v1/dev-tokens");
        assertEquals(200, response.statusCode(), response::asString);
        assertFalse(response.jsonPath().getMap("tokens").isEmpty());
    }

    @Test
    void aCallerFromAnotherAddressGetsAProblemAndNoToken() throws SocketException {
        Optional<String> ownAddress = nonLoopbackAddress();
        assumeTrue(ownAddress.isPresent(), "this machine has no non-loopback IPv4 address to call from");

        Response response = given().baseUri("http://" + ownAddress.get()).port(RestAssured.port).get("/api/v1/dev-tokens");

        assertEquals(404, response.statusCode(), response::asString);
        assertEquals("application/problem+json", response.contentType().split(";")[0]);
        assertFalse(response.asString().contains("eyJ"), "a token leaked: " + response.asString());
        assertTrue(response.jsonPath().getString("detail").contains("loopback"), response.asString());
    }

    private static Optional<String> nonLoopbackAddress() throws SocketException {
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress address : Collections.list(nic.getInetAddresses())) {
                if (address instanceof Inet4Address && !address.isLoopbackAddress() && !address.isLinkLocalAddress()) {
                    return Optional.of(address.getHostAddress());
                }
            }
        }
        return Optional.empty();
    }
}
