package dev.ductor.run;

import java.util.List;

/** One page of runs; {@code nextCursor} is null on the last page. */
public record RunPage(List<RunView> items, String nextCursor) {
}
