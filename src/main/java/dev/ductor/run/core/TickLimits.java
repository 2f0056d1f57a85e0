package dev.ductor.run.core;

/** Bounds the tick applies that are the operator's to set: {@code maxFanOut} is {@code ductor.workflow.max-fan-out}. */
public record TickLimits(int maxFanOut) {

    public static final TickLimits DEFAULT = new TickLimits(1000);
}
