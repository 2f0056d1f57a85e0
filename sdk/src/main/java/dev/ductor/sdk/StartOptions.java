package dev.ductor.sdk;

/**
 * How to start a run: an idempotency key (the same key and body again return the same run; another body is refused)
 * and a tier ({@code interactive}, {@code standard}, {@code batch}...). Both optional.
 */
public record StartOptions(String idempotencyKey, String tier) {

    public static StartOptions none() {
        return new StartOptions(null, null);
    }

    public static StartOptions key(String idempotencyKey) {
        return new StartOptions(idempotencyKey, null);
    }

    public StartOptions tier(String tier) {
        return new StartOptions(idempotencyKey, tier);
    }
}
