package dev.ductor.worker.egress;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.regex.Pattern;

/** A CIDR block such as {@code 10.0.0.0/8} or {@code fd00::/8}; a bare address is a block of one. */
record AddressRange(byte[] network, int prefixLength) {

    /** Digits and dots, or anything with a colon, optionally with a prefix: never looked up in DNS. */
    private static final Pattern LITERAL = Pattern.compile("([0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*)(/[0-9]{1,3})?");

    static boolean looksLikeRange(String entry) {
        return LITERAL.matcher(entry).matches();
    }

    static AddressRange parse(String cidr) {
        String[] parts = cidr.split("/", 2);
        byte[] network;
        try {
            network = InetAddress.getByName(parts[0]).getAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("not an address or CIDR block: '" + cidr + "'", e);
        }
        int bits = network.length * 8;
        int prefix = parts.length == 2 ? Integer.parseInt(parts[1]) : bits;
        if (prefix < 0 || prefix > bits) {
            throw new IllegalArgumentException("prefix length out of range in '" + cidr + "'");
        }
        return new AddressRange(network, prefix);
    }

    boolean contains(InetAddress address) {
        byte[] candidate = address.getAddress();
        if (candidate.length != network.length) {
            return false;
        }
        int whole = prefixLength / 8;
        for (int i = 0; i < whole; i++) {
            if (candidate[i] != network[i]) {
                return false;
            }
        }
        int rest = prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = (0xFF << (8 - rest)) & 0xFF;
        return (candidate[whole] & mask) == (network[whole] & mask);
    }
}
