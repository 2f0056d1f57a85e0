package dev.ductor.run.read;

import java.util.List;

/** One page of run summaries; {@code nextCursor} is null on the last page. */
public record RunPage(List<RunSummary> items, String nextCursor) {
}
