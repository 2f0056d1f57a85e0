package dev.ductor.database;

import java.util.Locale;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@code INSERT ... VALUES (...) ... RETURNING} written for one row, run for any number of rows as one statement
 * ({@code VALUES (...), (...), ...}). For inserts whose keys the caller needs back: pgjdbc rewrites a JDBC batch of
 * INSERTs into one multi-row statement ({@code reWriteBatchedInserts}) only when no generated keys are asked for
 * (pgjdbc#3683), and otherwise executes it row by row, so the leased-task insert and the run insert would cost an
 * execution per row. The statement is written whole, as one constant, so that a
 * reader (and {@code ArchitectureTest}) sees what it inserts; the text for each row count is built once, and parameters
 * are bound row after row, in the order of the row's placeholders.
 */
public final class MultiRowInsert {

    private final String head;
    private final String row;
    private final String tail;
    private final int parametersPerRow;
    private final ConcurrentHashMap<Integer, String> byRows = new ConcurrentHashMap<>();

    /** {@code sql}: an INSERT of one row, {@code VALUES} followed by that row's parenthesised list, then the rest. */
    public MultiRowInsert(String sql) {
        int values = sql.toUpperCase(Locale.ROOT).indexOf("VALUES");
        int open = values < 0 ? -1 : sql.indexOf('(', values);
        if (open < 0 || !sql.substring(values + "VALUES".length(), open).isBlank()) {
            throw new IllegalArgumentException("not an INSERT ... VALUES (...): " + sql);
        }
        int close = closing(sql, open);
        head = sql.substring(0, values).strip();
        row = sql.substring(open, close + 1);
        tail = sql.substring(close + 1).strip();
        parametersPerRow = (int) row.chars().filter(c -> c == '?').count();
    }

    private static int closing(String sql, int open) {
        int depth = 0;
        for (int i = open; i < sql.length(); i++) {
            char c = sql.charAt(i);
            if (c == '\'') { // a literal: skipped to its closing quote
                i = sql.indexOf('\'', i + 1);
                if (i < 0) {
                    break;
                }
            } else if (c == '(') {
                depth++;
            } else if (c == ')' && --depth == 0) {
                return i;
            }
        }
        throw new IllegalArgumentException("the row of VALUES is not closed: " + sql);
    }

    public String sql(int rows) {
        if (rows < 1) {
            throw new IllegalArgumentException("an INSERT needs at least one row");
        }
        return byRows.computeIfAbsent(rows, n -> {
            StringBuilder sql = new StringBuilder(head).append(" VALUES ").append(row);
            for (int i = 1; i < n; i++) {
                sql.append(", ").append(row);
            }
            return tail.isEmpty() ? sql.toString() : sql.append(' ').append(tail).toString();
        });
    }

    /** Where row {@code index} (0-based) starts: its first placeholder is JDBC parameter {@code offset(index) + 1}. */
    public int offset(int index) {
        return index * parametersPerRow;
    }

    /** The JDBC index of parameter {@code column} (1-based, as in the row) of row {@code index} (0-based). */
    public int parameter(int index, int column) {
        return offset(index) + column;
    }
}
