package dev.ductor.database;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A statement written with {@code :name} parameters, run by plain JDBC, which knows only {@code ?}. For a hot statement
 * long enough that counting positions would be error-prone (the fair task claim), where Hibernate's native query, which
 * does accept names, cost more than the statement: its machinery (interpretation, binding, result mapping) runs on
 * every call, where plain JDBC only binds. Parsed once per statement; {@code ::} casts and quoted literals are
 * left alone.
 */
public final class NamedSql {

    private final String jdbc;
    private final List<String> names;

    private NamedSql(String jdbc, List<String> names) {
        this.jdbc = jdbc;
        this.names = names;
    }

    public static NamedSql parse(String sql) {
        StringBuilder jdbc = new StringBuilder(sql.length());
        List<String> names = new ArrayList<>();
        int i = 0;
        while (i < sql.length()) {
            char c = sql.charAt(i);
            if (c == '\'' || c == '"') { // a literal or a quoted identifier: copied as it is, up to its closing quote
                int end = sql.indexOf(c, i + 1);
                end = end < 0 ? sql.length() - 1 : end;
                jdbc.append(sql, i, end + 1);
                i = end + 1;
            } else if (c == ':' && i + 1 < sql.length() && sql.charAt(i + 1) == ':') {
                jdbc.append("::");
                i += 2;
            } else if (c == ':' && i + 1 < sql.length() && Character.isJavaIdentifierStart(sql.charAt(i + 1))) {
                int end = i + 1;
                while (end < sql.length() && Character.isJavaIdentifierPart(sql.charAt(end))) {
                    end++;
                }
                names.add(sql.substring(i + 1, end));
                jdbc.append('?');
                i = end;
            } else {
                jdbc.append(c);
                i++;
            }
        }
        return new NamedSql(jdbc.toString(), List.copyOf(names));
    }

    /** Runs the query with {@code values} by name (an Instant as timestamptz); every row as its columns' objects. */
    public List<Object[]> query(Connection connection, Map<String, ?> values) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(jdbc)) {
            for (int i = 0; i < names.size(); i++) {
                if (!values.containsKey(names.get(i))) {
                    throw new IllegalArgumentException("no value for :" + names.get(i));
                }
                Object value = values.get(names.get(i));
                statement.setObject(i + 1, value instanceof Instant at ? at.atOffset(ZoneOffset.UTC) : value);
            }
            List<Object[]> rows = new ArrayList<>();
            try (ResultSet rs = statement.executeQuery()) {
                int columns = rs.getMetaData().getColumnCount();
                while (rs.next()) {
                    Object[] row = new Object[columns];
                    for (int c = 0; c < columns; c++) {
                        row[c] = rs.getObject(c + 1);
                    }
                    rows.add(row);
                }
            }
            return rows;
        }
    }

    /** The statement as JDBC runs it. */
    public String jdbc() {
        return jdbc;
    }

    /** The parameters' names in the order of their {@code ?}. */
    public List<String> names() {
        return names;
    }
}
