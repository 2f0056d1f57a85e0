package dev.ductor.run;

import com.fasterxml.jackson.annotation.JsonInclude;

import java.time.Instant;

/** One history entry; {@code node} is absent for the run's own transitions. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TransitionView(long seq, Instant at, String node, String from, String to, String cause) {
}
