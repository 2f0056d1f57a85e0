package dev.ductor.sdk;

/**
 * Reads a {@code text/event-stream} line by line (the WHATWG rules that matter here): {@code event:} names the event,
 * {@code data:} lines are joined with newlines, a blank line dispatches, {@code :} lines are comments.
 */
final class SseParser {

    record Event(String name, String data) {
    }

    private String name;
    private StringBuilder data;

    /** Feeds one line (without its line break); returns the event a blank line completes, else null. */
    Event line(String line) {
        if (line.isEmpty()) {
            if (data == null) {
                name = null;
                return null;
            }
            Event event = new Event(name == null ? "message" : name, data.toString());
            name = null;
            data = null;
            return event;
        }
        if (line.startsWith(":")) {
            return null;
        }
        int colon = line.indexOf(':');
        String field = colon < 0 ? line : line.substring(0, colon);
        String value = colon < 0 ? "" : line.substring(colon + 1);
        if (value.startsWith(" ")) {
            value = value.substring(1);
        }
        if (field.equals("event")) {
            name = value;
        } else if (field.equals("data")) {
            if (data == null) {
                data = new StringBuilder(value);
            } else {
                data.append('\n').append(value);
            }
        }
        return null;
    }
}
