package dev.ductor.database;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

@Tag("unit")
class MultiRowInsertTest {

    private final MultiRowInsert insert = new MultiRowInsert("""
            INSERT INTO t (a, b, c)
            VALUES (?, CAST(? AS jsonb), 1, ?)
            ON CONFLICT DO NOTHING RETURNING id""");

    @Test
    void oneRowGroupPerRowBetweenHeadAndTail() {
        assertEquals("INSERT INTO t (a, b, c) VALUES (?, CAST(? AS jsonb), 1, ?) ON CONFLICT DO NOTHING RETURNING id",
                insert.sql(1));
        assertEquals("INSERT INTO t (a, b, c) VALUES (?, CAST(? AS jsonb), 1, ?), (?, CAST(? AS jsonb), 1, ?),"
                + " (?, CAST(? AS jsonb), 1, ?) ON CONFLICT DO NOTHING RETURNING id", insert.sql(3));
        assertSame(insert.sql(3), insert.sql(3), "built once per row count");
    }

    @Test
    void parametersAreNumberedRowAfterRowByTheRowsPlaceholders() {
        assertEquals(1, insert.parameter(0, 1));
        assertEquals(3, insert.parameter(0, 3));
        assertEquals(4, insert.parameter(1, 1), "the literal 1 of the row is no parameter");
        assertEquals(9, insert.parameter(2, 3));
    }

    @Test
    void noRowsIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> insert.sql(0));
    }

    @Test
    void aStatementWithoutOneRowOfValuesIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new MultiRowInsert("INSERT INTO t SELECT * FROM u"));
        assertThrows(IllegalArgumentException.class, () -> new MultiRowInsert("INSERT INTO t (a) VALUES (?, CAST(? AS int)"));
    }

    @Test
    void parenthesesInsideALiteralDoNotEndTheRow() {
        MultiRowInsert literal = new MultiRowInsert("INSERT INTO t (a, b) VALUES (?, ')(') RETURNING a");
        assertEquals("INSERT INTO t (a, b) VALUES (?, ')('), (?, ')(') RETURNING a", literal.sql(2));
    }
}
