package dev.ductor.sdk;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.net.http.HttpHeaders;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The history's next page is read from an RFC 8288 Link header, whatever else the header lists. */
@Tag("unit")
class NextLinkTest {

    private static HttpHeaders headers(String... links) {
        return HttpHeaders.of(Map.of("Link", List.of(links)), (name, value) -> true);
    }

    @Test
    void theNextTargetAndItsAfterAreRead() {
        String target = DuctorClient.nextLink(headers("</api/v1/runs/r/history?after=500&limit=500>; rel=\"next\""));
        assertEquals("/api/v1/runs/r/history?after=500&limit=500", target);
        assertEquals(500L, DuctorClient.nextAfter(target));
    }

    @Test
    void otherRelationsAreNotTheNextPage() {
        assertNull(DuctorClient.nextLink(headers("</docs>; rel=\"help\"")));
        assertNull(DuctorClient.nextLink(HttpHeaders.of(Map.of(), (n, v) -> true)));
        assertEquals("/x?limit=2&after=7", DuctorClient.nextLink(headers("</docs>; rel=\"help\"", "</x?limit=2&after=7>; rel=next")));
        assertEquals(7L, DuctorClient.nextAfter("/x?limit=2&after=7"));
    }
}
