/**
 * The run's tables and the types every path shares: the run row and its one writer ({@link dev.ductor.run.RunRows}),
 * the inbox, the outbox, the history, the loader and the state codec; the paths above it ({@code commit},
 * {@code coordinator}, {@code command}, {@code read}, {@code live}) import it and it imports none of them.
 */
package dev.ductor.run;
