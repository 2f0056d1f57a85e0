package dev.ductor.run.core;

import com.fasterxml.jackson.databind.JsonNode;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * What a request under an idempotency key carried, as the SHA-256 (hex) of the canonical JSON of the fields that
 * decide its effect: two bodies that mean the same (keys in another order, {@code 1.0} for {@code 1}) have the same
 * fingerprint, any other difference gives another one.
 */
public final class RequestFingerprint {

    private RequestFingerprint() {
    }

    public static String of(JsonNode fields) {
        StringBuilder canonical = new StringBuilder();
        CanonicalJson.write(fields, canonical);
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JVM has SHA-256", e);
        }
    }
}
