/**
 * The coordinator: claims a run's wakeups and timers, ticks the run through {@code commit/RunCommitter} in a transaction
 * of its own, retries a lost race, requeues, and parks a run that fails on every delivery.
 */
package dev.ductor.run.coordinator;
