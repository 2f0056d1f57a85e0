package dev.ductor.run.core;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * SHA-256 over the canonical form of a run's node states. Written with every commit and verified on
 * every load, so a row edited behind Ductor's back (or torn by a bug) is refused, not silently advanced.
 */
public final class StateChecksum {

    private StateChecksum() {
    }

    public static String of(Map<String, NodeState> nodes) {
        StringBuilder canonical = new StringBuilder();
        new TreeMap<>(nodes).forEach((id, node) -> {
            CanonicalJson.quote(id, canonical);
            canonical.append('|').append(node.state()).append('|').append(node.attempts()).append('|');
            CanonicalJson.write(node.output(), canonical);
            canonical.append('|');
            if (node.error() != null) {
                CanonicalJson.quote(node.error(), canonical);
            }
            canonical.append('\n');
        });
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    }
}
