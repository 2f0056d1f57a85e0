package dev.ductor.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * Whether an address stays on this machine. Dev tokens are handed out and served only there: anyone who can reach a
 * dev-token endpoint from elsewhere could take the admin token, so the question is asked of the caller's address
 * (every request) and of the listening address (once, at start-up).
 */
public final class Loopback {

    /** Digits and dots (IPv4) or anything with a colon (IPv6): parsed as a literal, never looked up in DNS. */
    private static final Pattern IP_LITERAL = Pattern.compile("[0-9.]+|.*:.*");

    private Loopback() {
    }

    /**
     * True only for an IP literal in 127.0.0.0/8 or ::1 (IPv4-mapped forms included). A caller's address is always a
     * literal; anything else (null, a name, a Unix socket path) is not trusted as local.
     */
    public static boolean isLoopbackCaller(String ipLiteral) {
        if (ipLiteral == null || !IP_LITERAL.matcher(ipLiteral).matches()) {
            return false;
        }
        try {
            return InetAddress.getByName(ipLiteral).isLoopbackAddress();
        } catch (UnknownHostException notAnAddress) {
            return false;
        }
    }

    /**
     * True when a listening host ({@code quarkus.http.host}) accepts connections from this machine only: a loopback
     * literal, or a name all of whose addresses are loopback ({@code localhost}). {@code 0.0.0.0} and {@code ::} listen
     * on every interface.
     */
    public static boolean isLoopbackBinding(String host) {
        if (host == null || host.isBlank()) {
            return false;
        }
        try {
            InetAddress[] addresses = InetAddress.getAllByName(host.strip());
            return addresses.length > 0 && Arrays.stream(addresses).allMatch(InetAddress::isLoopbackAddress);
        } catch (UnknownHostException unresolvable) {
            return false;
        }
    }
}
