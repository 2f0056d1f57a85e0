package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * SHA-256 over the canonical form of what a tick decides on: the run's status, its last transition seq, its
 * output and tier, and its node states. Written with every commit and verified on every load, so a row edited
 * behind Ductor's back (or torn by a bug) is refused, not silently advanced.
 *
 * <p>Versioned: the current form is {@code v2:<hex>}. Rows sealed before it hold a bare hex digest of the node
 * states alone ({@link #legacyOfNodes}); they are still accepted, on what that form covers, and are sealed in the
 * current form by their next commit. A checksum is a guard against accidents and edits outside Ductor, not a
 * signature: whoever can write the row can also compute it.
 */
public final class StateChecksum {

    private static final String V2 = "v2:";

    /**
     * One digest per thread, reset by each use: {@code MessageDigest.getInstance} walks the security providers on
     * every call, the larger part of a checksum's cost, and every commit seals and every load verifies.
     */
    private static final ThreadLocal<MessageDigest> SHA_256 = ThreadLocal.withInitial(() -> {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is required of every JVM", e);
        }
    });

    private StateChecksum() {
    }

    /** What the checksum covers, as stored: the status is the column's text, so an unknown value is a mismatch. */
    public record Covered(String status, long lastSeq, String tier, JsonNode output, Map<String, NodeState> nodes) {
    }

    /** The current form, {@code v2:} and the hex digest. */
    public static String of(Covered state) {
        StringBuilder canonical = new StringBuilder("v2\n");
        CanonicalJson.quote(String.valueOf(state.status()), canonical);
        canonical.append('\n').append(state.lastSeq()).append('\n');
        if (state.tier() != null) {
            CanonicalJson.quote(state.tier(), canonical);
        }
        canonical.append('\n');
        CanonicalJson.write(state.output(), canonical);
        canonical.append('\n');
        appendNodes(state.nodes(), canonical);
        return V2 + sha256(canonical);
    }

    /** Whether {@code stored} seals {@code state}: in the current form, or in the legacy one over its node states. */
    public static boolean matches(String stored, Covered state) {
        if (stored == null) {
            return false;
        }
        return stored.startsWith(V2) ? stored.equals(of(state)) : stored.equals(legacyOfNodes(state.nodes()));
    }

    /** The form written before v2: a bare hex digest of the node states alone. Only ever compared with, never written. */
    static String legacyOfNodes(Map<String, NodeState> nodes) {
        StringBuilder canonical = new StringBuilder();
        appendNodes(nodes, canonical);
        return sha256(canonical);
    }

    private static void appendNodes(Map<String, NodeState> nodes, StringBuilder canonical) {
        new TreeMap<>(nodes).forEach((id, node) -> {
            CanonicalJson.quote(id, canonical);
            appendNode(node, canonical);
            canonical.append('\n');
        });
    }

    /** The fields added since v2 was defined are appended only when set: a node without them seals as it did before. */
    private static void appendNode(NodeState node, StringBuilder canonical) {
        canonical.append('|').append(node.state()).append('|').append(node.attempts());
        if (node.leaseRetries() != 0) {
            canonical.append('+').append(node.leaseRetries());
        }
        canonical.append('|');
        CanonicalJson.write(node.output(), canonical);
        canonical.append('|');
        if (node.error() != null) {
            CanonicalJson.quote(node.error(), canonical);
        }
        if (node.input() != null) {
            canonical.append("|in=");
            CanonicalJson.write(node.input(), canonical);
        }
        if (node.byOperator()) {
            canonical.append("|op");
        }
        if (node.priorAttempts() != 0) {
            canonical.append("|prior=").append(node.priorAttempts());
        }
        if (node.items() != null) {
            canonical.append("|items=").append(node.items().size()).append('[');
            node.items().forEach(item -> {
                appendNode(item, canonical);
                canonical.append(';');
            });
            canonical.append(']');
        }
    }

    private static String sha256(CharSequence canonical) {
        byte[] digest = SHA_256.get().digest(canonical.toString().getBytes(StandardCharsets.UTF_8)); // digest() resets
        return HexFormat.of().formatHex(digest);
    }
}
