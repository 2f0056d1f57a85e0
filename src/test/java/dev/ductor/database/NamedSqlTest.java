package dev.ductor.database;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

@Tag("unit")
class NamedSqlTest {

    @Test
    void namesBecomePositionsInTheirOrderAndRepeatsBindAgain() {
        NamedSql sql = NamedSql.parse("SELECT * FROM t WHERE a <= :now AND b = :max AND c <= :now LIMIT :max");
        assertEquals("SELECT * FROM t WHERE a <= ? AND b = ? AND c <= ? LIMIT ?", sql.jdbc());
        assertEquals(List.of("now", "max", "now", "max"), sql.names());
    }

    @Test
    void castsLiteralsAndQuotedNamesAreLeftAlone() {
        NamedSql sql = NamedSql.parse("SELECT x::text, ':not' || \"a:b\" FROM t WHERE k = 'TASK' AND j = CAST(:json AS jsonb)");
        assertEquals("SELECT x::text, ':not' || \"a:b\" FROM t WHERE k = 'TASK' AND j = CAST(? AS jsonb)", sql.jdbc());
        assertEquals(List.of("json"), sql.names());
    }
}
