package dev.ductor.it;

import org.postgresql.ds.PGSimpleDataSource;

import javax.sql.DataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The little SQL the ITs check invariants with, straight on the pods' database (a connection per call). */
final class Sql {

    private final DataSource db;

    Sql(DataSource db) {
        this.db = db;
    }

    /** A PostgreSQL on localhost that the test did not start itself (e.g. a pod's own embedded one). */
    static Sql localhost(int port) {
        PGSimpleDataSource source = new PGSimpleDataSource();
        source.setServerNames(new String[] {"localhost"});
        source.setPortNumbers(new int[] {port});
        source.setDatabaseName("postgres");
        source.setUser("postgres");
        source.setConnectTimeout(5);
        return new Sql(source);
    }

    DataSource dataSource() {
        return db;
    }

    /** The first column of the first row as a long (0 when it is NULL). */
    long single(String sql, Object... params) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement s = prepare(c, sql, params); ResultSet rs = s.executeQuery()) {
            if (!rs.next()) {
                throw new AssertionError("no row from: " + sql);
            }
            return rs.getLong(1);
        }
    }

    /** Column 1 as the key, column 2 as a long count. */
    Map<String, Long> countBy(String sql, Object... params) throws SQLException {
        Map<String, Long> counts = new LinkedHashMap<>();
        try (Connection c = db.getConnection(); PreparedStatement s = prepare(c, sql, params); ResultSet rs = s.executeQuery()) {
            while (rs.next()) {
                counts.put(rs.getString(1), rs.getLong(2));
            }
        }
        return counts;
    }

    /** Every row as label -> value (as text), in order. */
    List<Map<String, String>> maps(String sql, Object... params) throws SQLException {
        List<Map<String, String>> out = new ArrayList<>();
        try (Connection c = db.getConnection(); PreparedStatement s = prepare(c, sql, params); ResultSet rs = s.executeQuery()) {
            int columns = rs.getMetaData().getColumnCount();
            while (rs.next()) {
                Map<String, String> row = new LinkedHashMap<>();
                for (int i = 1; i <= columns; i++) {
                    row.put(rs.getMetaData().getColumnLabel(i), rs.getString(i));
                }
                out.add(row);
            }
        }
        return out;
    }

    /** Every row rendered as {@code {label=value ...}}, for failure messages. */
    List<String> rows(String sql, Object... params) throws SQLException {
        List<String> out = new ArrayList<>();
        for (Map<String, String> row : maps(sql, params)) {
            List<String> cells = new ArrayList<>();
            row.forEach((label, value) -> cells.add(label + "=" + value));
            out.add("{" + String.join(" ", cells) + "}");
        }
        return out;
    }

    int update(String sql, Object... params) throws SQLException {
        try (Connection c = db.getConnection(); PreparedStatement s = prepare(c, sql, params)) {
            return s.executeUpdate();
        }
    }

    private static PreparedStatement prepare(Connection c, String sql, Object... params) throws SQLException {
        PreparedStatement statement = c.prepareStatement(sql);
        for (int i = 0; i < params.length; i++) {
            statement.setObject(i + 1, params[i]);
        }
        return statement;
    }
}
