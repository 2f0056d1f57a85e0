package dev.ductor.sdk;

import java.util.List;

/** One page of a list; {@code nextCursor} is null on the last page. */
public record Page<T>(List<T> items, String nextCursor) {

    public boolean hasMore() {
        return nextCursor != null;
    }
}
