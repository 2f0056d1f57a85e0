package dev.ductor.aggregate;

/** Which aggregate: its type ({@code pool}, {@code rule}), tenant and name. */
public record AggregateKey(String type, String tenant, String name) {

    /** The stream id the uniqueness constraint is on. */
    public String id() {
        return type + ":" + tenant + ":" + name;
    }
}
