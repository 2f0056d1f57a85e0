package dev.ductor.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/** Left-aligned columns, as wide as their widest cell. */
final class Table {

    private final List<String[]> rows = new ArrayList<>();

    Table(String... header) {
        rows.add(header);
    }

    void row(String... cells) {
        rows.add(cells);
    }

    void print(PrintWriter out) {
        int columns = rows.get(0).length;
        int[] width = new int[columns];
        for (String[] row : rows) {
            for (int i = 0; i < columns; i++) {
                width[i] = Math.max(width[i], cell(row, i).length());
            }
        }
        for (String[] row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < columns; i++) {
                String cell = cell(row, i);
                line.append(cell);
                if (i < columns - 1) {
                    line.append(" ".repeat(width[i] - cell.length() + 2));
                }
            }
            out.println(line.toString().stripTrailing());
        }
        out.flush();
    }

    private static String cell(String[] row, int i) {
        return i < row.length && row[i] != null ? row[i] : "";
    }
}
