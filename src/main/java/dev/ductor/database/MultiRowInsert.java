package dev.ductor.database;

import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@code INSERT ... VALUES (...), (...) ... RETURNING} of any number of rows, as one statement. For inserts whose
 * keys the caller needs back: pgjdbc rewrites a JDBC batch of INSERTs into one multi-row statement
 * ({@code reWriteBatchedInserts}) only when no generated keys are asked for (pgjdbc#3683), and otherwise executes it
 * row by row. Under chain3 {@code pg_stat_statements} showed the leased-task insert and the run insert at one
 * execution per row. The text for each row count is built once; parameters are bound row after row, in the order of
 * {@code row}'s placeholders.
 */
public final class MultiRowInsert {

    private final String head;
    private final String row;
    private final String tail;
    private final int parametersPerRow;
    private final ConcurrentHashMap<Integer, String> byRows = new ConcurrentHashMap<>();

    /**
     * {@code head} up to {@code VALUES}, {@code row} one row's {@code (?, ...)}, {@code tail} what follows the rows
     * ({@code ON CONFLICT ... RETURNING ...}).
     */
    public MultiRowInsert(String head, String row, String tail) {
        this.head = head.strip();
        this.row = row.strip();
        this.tail = tail.strip();
        this.parametersPerRow = (int) row.chars().filter(c -> c == '?').count();
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
            return sql.append(' ').append(tail).toString();
        });
    }

    /** The JDBC index of parameter {@code column} (1-based, as in {@code row}) of row {@code index} (0-based). */
    public int parameter(int index, int column) {
        return index * parametersPerRow + column;
    }
}
