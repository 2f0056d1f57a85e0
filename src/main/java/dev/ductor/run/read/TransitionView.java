package dev.ductor.run.read;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;

import java.time.Instant;

/** One history entry; {@code node} is absent for the run's own transitions (registered: the history answers a Response). */
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_NULL)
public record TransitionView(long seq, Instant at, String node, String from, String to, String cause) {
}
