package dev.ductor.worker.egress;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Where an {@code http} step may connect. Whoever writes a workflow, and often whoever starts a run, chooses the URL,
 * so by default a step cannot reach the pod itself (loopback, its own ports), its link-local neighbours (cloud metadata
 * at 169.254.169.254), the any-address, multicast, or private networks (10/8, 172.16/12, 192.168/16, 100.64/10,
 * fc00::/7). Operators open private ranges and internal hosts with {@code ductor.http.allow} and close public ones with
 * {@code ductor.http.deny}; entries are CIDR blocks, single addresses, host names, or {@code *.suffix} patterns.
 *
 * <p>Rules, first match wins, for every address the host resolves to (one refused address refuses the call, so a name
 * cannot hide an internal address behind a public one): the pod's own port on one of its own addresses is always
 * refused; then the deny list; then the allow list; then the default ranges above are refused; anything else is
 * allowed.
 */
public final class EgressPolicy {

    private static final List<AddressRange> PRIVATE = List.of(
            AddressRange.parse("0.0.0.0/8"), AddressRange.parse("10.0.0.0/8"), AddressRange.parse("100.64.0.0/10"),
            AddressRange.parse("172.16.0.0/12"), AddressRange.parse("192.168.0.0/16"), AddressRange.parse("fc00::/7"));

    /** What the policy says about one call: allowed, or refused with the reason. */
    public record Verdict(boolean allowed, String reason) {
        static final Verdict ALLOWED = new Verdict(true, null);
    }

    private record Entries(List<AddressRange> ranges, List<String> names) {

        static Entries of(List<String> entries, String setting) {
            List<AddressRange> ranges = new ArrayList<>();
            List<String> names = new ArrayList<>();
            for (String raw : entries) {
                String entry = normalized(raw);
                if (entry.isEmpty()) {
                    continue;
                }
                if (AddressRange.looksLikeRange(entry)) {
                    try {
                        ranges.add(AddressRange.parse(entry));
                    } catch (IllegalArgumentException e) {
                        throw new IllegalArgumentException(setting + ": " + e.getMessage(), e);
                    }
                } else {
                    names.add(entry);
                }
            }
            return new Entries(List.copyOf(ranges), List.copyOf(names));
        }

        boolean matches(String host, InetAddress address) {
            return ranges.stream().anyMatch(r -> r.contains(address)) || names.stream().anyMatch(n -> nameMatches(n, host));
        }

        private static boolean nameMatches(String entry, String host) {
            String name = normalized(host);
            return entry.startsWith("*.") ? name.endsWith(entry.substring(1)) : name.equals(entry);
        }
    }

    /** Host names compare without case and without the root's trailing dot ({@code example.com.} is example.com). */
    private static String normalized(String name) {
        String stripped = name.strip().toLowerCase(Locale.ROOT);
        return stripped.endsWith(".") ? stripped.substring(0, stripped.length() - 1) : stripped;
    }

    private final Entries allow;
    private final Entries deny;
    private final Set<Integer> ownPorts;
    private final Predicate<InetAddress> ownAddress;

    private EgressPolicy(Entries allow, Entries deny, Set<Integer> ownPorts, Predicate<InetAddress> ownAddress) {
        this.allow = allow;
        this.deny = deny;
        this.ownPorts = Set.copyOf(ownPorts);
        this.ownAddress = ownAddress;
    }

    /**
     * @param ownPorts   the ports this pod serves (HTTP, HTTPS, management)
     * @param ownAddress whether an address is this pod's (loopback, any-local, one of its interfaces)
     * @throws IllegalArgumentException for an entry that looks like an address but is not one
     */
    public static EgressPolicy of(List<String> allow, List<String> deny, Set<Integer> ownPorts, Predicate<InetAddress> ownAddress) {
        return new EgressPolicy(Entries.of(allow, "ductor.http.allow"), Entries.of(deny, "ductor.http.deny"), ownPorts, ownAddress);
    }

    /** Judges a call to {@code host:port} that would connect to one of {@code addresses} (all of them are checked). */
    public Verdict check(String host, int port, List<InetAddress> addresses) {
        if (addresses.isEmpty()) {
            return new Verdict(false, "'" + host + "' resolves to no address");
        }
        for (InetAddress address : addresses) {
            String refused = refusal(host, port, address);
            if (refused != null) {
                return new Verdict(false, "'" + host + "' resolves to " + address.getHostAddress() + ", " + refused);
            }
        }
        return Verdict.ALLOWED;
    }

    private String refusal(String host, int port, InetAddress address) {
        if (ownPorts.contains(port) && ownAddress.test(address)) {
            return "this pod's own port " + port + ", which a step may never call";
        }
        if (deny.matches(host, address)) {
            return "refused by ductor.http.deny";
        }
        if (allow.matches(host, address)) {
            return null;
        }
        String range = deniedByDefault(address);
        return range == null ? null : "a " + range + " address, refused unless ductor.http.allow lists it or the host";
    }

    private static String deniedByDefault(InetAddress address) {
        if (address.isLoopbackAddress()) {
            return "loopback";
        }
        if (address.isLinkLocalAddress()) {
            return "link-local";
        }
        if (address.isAnyLocalAddress()) {
            return "any-local";
        }
        if (address.isMulticastAddress()) {
            return "multicast";
        }
        if (address.isSiteLocalAddress() || PRIVATE.stream().anyMatch(r -> r.contains(address))) {
            return "private";
        }
        return null;
    }
}
