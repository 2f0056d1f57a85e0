package dev.ductor.sdk;

import java.util.List;

/**
 * One page of a run's history, in {@code seq} order; {@code nextAfter} is the {@code after} of the next page (the
 * server's {@code Link: <...>; rel="next"}), null on the last page.
 */
public record HistoryPage(List<Transition> items, Long nextAfter) {

    public boolean hasMore() {
        return nextAfter != null;
    }
}
