package dev.ductor.sdk;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

@Tag("unit")
class SseParserTest {

    private static List<SseParser.Event> parse(String... lines) {
        SseParser parser = new SseParser();
        List<SseParser.Event> events = new ArrayList<>();
        for (String line : lines) {
            SseParser.Event event = parser.line(line);
            if (event != null) {
                events.add(event);
            }
        }
        return events;
    }

    @Test
    void aBlankLineDispatchesTheNamedEventWithItsDataLinesJoined() {
        List<SseParser.Event> events = parse(": keep-alive", "event: run", "data: {\"a\":", "data:1}", "", "", "data: x", "");
        assertEquals(2, events.size());
        assertEquals(new SseParser.Event("run", "{\"a\":\n1}"), events.get(0));
        assertEquals(new SseParser.Event("message", "x"), events.get(1));
    }

    @Test
    void anEventWithoutDataIsNotDispatched() {
        SseParser parser = new SseParser();
        assertNull(parser.line("event: run"));
        assertNull(parser.line(""));
        assertEquals(new SseParser.Event("message", "y"), parse("id: 3", "data: y", "").get(0));
    }
}
