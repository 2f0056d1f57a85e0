package dev.ductor.worker.egress;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Which addresses an {@code http} step may reach: by default nothing on the pod itself, its link-local neighbours
 * (cloud metadata) or private networks; private ranges and hosts only when configured; every address a name resolves
 * to is judged, so one bad address refuses the call.
 */
@Tag("unit")
class EgressPolicyTest {

    private static final int OWN_PORT = 8080;

    private static EgressPolicy policy(List<String> allow, List<String> deny) {
        return EgressPolicy.of(allow, deny, Set.of(OWN_PORT), address -> address.isLoopbackAddress() || address.isAnyLocalAddress()
                || "192.0.2.2".equals(address.getHostAddress()));
    }

    private static EgressPolicy byDefault() {
        return policy(List.of(), List.of());
    }

    private static boolean allowed(EgressPolicy policy, String host, int port, String... addresses) throws Exception {
        List<InetAddress> resolved = new java.util.ArrayList<>();
        for (String address : addresses) {
            resolved.add(InetAddress.getByName(address));
        }
        return policy.check(host, port, resolved).allowed();
    }

    @Test
    void byDefaultLoopbackLinkLocalAnyLocalMulticastAndPrivateRangesAreDenied() throws Exception {
        for (String address : List.of("127.0.0.1", "127.1.2.3", "::1", "169.254.169.254", "fe80::1", "0.0.0.0", "::",
                "224.0.0.1", "ff02::1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "fd00::2", "100.64.0.1")) {
            assertFalse(allowed(byDefault(), address, 80, address), address);
        }
    }

    @Test
    void publicAddressesAreAllowedByDefault() throws Exception {
        assertTrue(allowed(byDefault(), "example.com", 443, "93.184.215.14"));
        assertTrue(allowed(byDefault(), "example.com", 443, "2606:2800:21f:cb07:6820:80da:af6b:8b2c"));
    }

    @Test
    void aNameResolvingToLoopbackIsDeniedAsItsAddressIs() throws Exception {
        assertFalse(byDefault().check("localhost", 80, List.of(InetAddress.getAllByName("localhost"))).allowed());
    }

    @Test
    void oneDeniedAddressAmongANamesAddressesDeniesTheCall() throws Exception {
        assertFalse(allowed(byDefault(), "rebinding.example", 80, "93.184.215.14", "127.0.0.1"));
    }

    @Test
    void loopbackAndPrivateRangesAreAllowedWhenConfigured() throws Exception {
        EgressPolicy policy = policy(List.of("127.0.0.1", "10.0.0.0/8", "payments.internal", "*.svc.cluster.local"), List.of());
        assertTrue(allowed(policy, "127.0.0.1", 9999, "127.0.0.1"));
        assertFalse(allowed(policy, "127.0.0.2", 9999, "127.0.0.2"), "a /32 allows that address only");
        assertTrue(allowed(policy, "10.9.8.7", 80, "10.9.8.7"));
        assertTrue(allowed(policy, "payments.internal", 80, "192.168.7.7"), "an allowed name may resolve to a private address");
        assertTrue(allowed(policy, "orders.shop.svc.cluster.local", 80, "172.20.0.5"));
        assertFalse(allowed(policy, "svc.cluster.local.evil.example", 80, "172.20.0.5"));
    }

    @Test
    void theDenyListWinsOverTheAllowListAndOverPublicAddresses() throws Exception {
        EgressPolicy policy = policy(List.of("10.0.0.0/8"), List.of("10.0.5.0/24", "blocked.example", "93.184.215.0/24"));
        assertFalse(allowed(policy, "10.0.5.1", 80, "10.0.5.1"));
        assertTrue(allowed(policy, "10.0.6.1", 80, "10.0.6.1"));
        assertFalse(allowed(policy, "blocked.example", 80, "8.8.8.8"));
        assertFalse(allowed(policy, "example.com", 80, "93.184.215.14"));
    }

    @Test
    void thePodsOwnPortIsDeniedEvenWhereItsAddressIsAllowed() throws Exception {
        EgressPolicy policy = policy(List.of("127.0.0.1", "192.0.2.0/24"), List.of());
        assertFalse(allowed(policy, "127.0.0.1", OWN_PORT, "127.0.0.1"), "the pod's own /q/metrics");
        assertFalse(allowed(policy, "192.0.2.2", OWN_PORT, "192.0.2.2"), "its own port on its own network address");
        assertTrue(allowed(policy, "192.0.2.3", OWN_PORT, "192.0.2.3"), "the same port on another host");
    }

    @Test
    void aMalformedEntryIsRefusedNamingItsSetting() {
        IllegalArgumentException bad = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> policy(List.of("10.0.0.0/33"), List.of()));
        assertTrue(bad.getMessage().contains("ductor.http.allow") && bad.getMessage().contains("10.0.0.0/33"), bad.getMessage());
        IllegalArgumentException badDeny = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> policy(List.of(), List.of("300.1.2.3")));
        assertTrue(badDeny.getMessage().contains("ductor.http.deny"), badDeny.getMessage());
    }

    @Test
    void hostNamesMatchWhateverTheirCaseOrTrailingDot() throws Exception {
        EgressPolicy policy = policy(List.of("Payments.Internal"), List.of());
        assertTrue(allowed(policy, "PAYMENTS.internal.", 80, "10.1.1.1"));
    }

    @Test
    void theRefusalNamesTheAddressAndTheSetting() throws Exception {
        String reason = byDefault().check("metadata", 80, List.of(InetAddress.getByName("169.254.169.254"))).reason();
        assertTrue(reason.contains("169.254.169.254") && reason.contains("ductor.http.allow"), reason);
    }
}
