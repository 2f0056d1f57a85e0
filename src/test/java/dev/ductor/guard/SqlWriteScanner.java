package dev.ductor.guard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The one SQL guard of the build: it finds the SQL of the server, in its Java sources (their string literals, joined
 * per expression the way {@code "..." + "..."} joins them, with the file's {@code String} constants substituted), in
 * its SQL files and in its migrations, and every rule about SQL reads it from here.
 *
 * <p>Why the source, not the compiled constants: a finding names its file and line; the code around a statement is
 * there too, so a rule can see what is done with it (its row count never read, a Panache or Criteria bulk call, a
 * table name spliced in at run time); comments are comments and nothing else; the SQL files and the migrations are
 * read by the same lexer of SQL; and the scanner runs on snippets, so it checks itself against known bypasses without
 * compiling anything. What javac would have folded and the source cannot resolve (a non-constant operand, a constant
 * of another class) is joined as {@code __DYNAMIC__}, so a write on it fails as one whose table cannot be checked,
 * rather than slipping through; pieces appended to a {@code StringBuilder} are texts of their own, each checked.
 *
 * <p>The rules, and who asks for them:
 * <ul>
 *   <li>{@link #sqlByType} gives {@code dev.ductor.ArchitectureTest} each class's SQL texts: every table is touched
 *   by its owning package only, a write names its table, and the run row is written by {@code RunRows} alone, every
 *   UPDATE of it checked and bumped, its INSERT at version 0, retention's DELETE its only one;</li>
 *   <li>{@link #scanMigration} ({@code ArchitectureTest} too): a migration writes the run row only by the versioned
 *   UPDATE;</li>
 *   <li>{@link #scanJava} and {@link #scanSqlFile} ({@link VersionBypassTest}) guard the tables protected by
 *   optimistic locking, learned from the Flyway migrations and the {@code @Entity} classes rather than listed here:</li>
 * </ul>
 * <ul>
 *   <li><b>versioned tables</b>, those with a {@code db_record_version} column (runs, definitions, the pool and rule
 *   projections): an UPDATE must pin one row by a key and compare {@code db_record_version} in its WHERE; a DELETE
 *   of a run is allowed only as retention's ({@link #RETENTION_DELETE}); an upsert or MERGE into them is a write
 *   without the check;</li>
 *   <li><b>event tables</b>, named {@code *aggregate*} or {@code *event*}: append-only, no UPDATE, DELETE or TRUNCATE;
 *   the one exception is a set-once fill of a non-aggregate event row ({@code SET c = ? WHERE <key> = ? AND c IS
 *   NULL}, each set column), which completes an insert and can never overwrite;</li>
 *   <li><b>immutable tables</b> (accepted workflow revisions, which runs pin): no UPDATE or DELETE.</li>
 * </ul>
 * Panache and Criteria bulk operations on entities of those tables are violations, and so is a versioned UPDATE run
 * with {@code executeUpdate()} whose row count nobody reads (zero rows must raise, not pass silently).
 */
public final class SqlWriteScanner {

    public record Violation(String file, int line, String rule, String excerpt) {
        @Override
        public String toString() {
            return file + ":" + line + " [" + rule + "] " + excerpt;
        }
    }

    /** What the scanner knows about the schema. */
    static final class Schema {
        /** Versioned table -> its keys (each a list of columns: the primary key and the unique constraints). */
        final Map<String, List<List<String>>> versioned = new LinkedHashMap<>();
        final Map<String, List<List<String>>> keys = new HashMap<>();
        final Set<String> tables = new TreeSet<>();
        final Set<String> immutable = new TreeSet<>(Set.of("eec_workflow_revision"));
        /** Entity class simple name (lower case) -> table. */
        final Map<String, String> entities = new HashMap<>();

        boolean isEventTable(String table) {
            return table.contains("aggregate") || table.contains("event");
        }

        boolean isAggregateEventTable(String table) {
            return table.contains("aggregate");
        }

        boolean isProtected(String table) {
            return versioned.containsKey(table) || immutable.contains(table) || isEventTable(table);
        }

        /** Entity names mapped to protected tables (for Panache and Criteria calls). */
        Set<String> protectedEntities() {
            Set<String> names = new TreeSet<>();
            entities.forEach((entity, table) -> {
                if (isProtected(table)) {
                    names.add(entity);
                }
            });
            return names;
        }
    }

    private static final String DYNAMIC = "__DYNAMIC__";
    /** Where a literal stood in a statement's code: a marker no Java identifier can contain. */
    private static final char MARK_OPEN = '\u27e6';
    private static final char MARK_CLOSE = '\u27e7';
    private static final Pattern MARK = Pattern.compile("\u27e6(\\d+)\u27e7");
    private static final String IDENT = "((?:\"?[\\w$%]+\"?\\s*\\.\\s*)?\"?[\\w$%]+\"?)";
    private static final Pattern UPDATE = Pattern.compile("(?i)\\bUPDATE\\s+(?:ONLY\\s+)?" + IDENT);
    private static final Pattern DELETE = Pattern.compile("(?i)\\bDELETE\\s+(?:FROM\\s+)?(?:ONLY\\s+)?" + IDENT);
    private static final Pattern TRUNCATE = Pattern.compile("(?i)\\bTRUNCATE\\s+(?:TABLE\\s+)?(?:ONLY\\s+)?" + IDENT);
    private static final Pattern INSERT = Pattern.compile("(?i)\\bINSERT\\s+INTO\\s+" + IDENT);
    private static final Pattern MERGE = Pattern.compile("(?i)\\bMERGE\\s+INTO\\s+" + IDENT);
    private static final Pattern WHERE = Pattern.compile("(?i)\\bWHERE\\b");
    private static final Pattern RETURNING = Pattern.compile("(?i)\\bRETURNING\\b");
    private static final Pattern DO_UPDATE = Pattern.compile("(?i)\\bON\\s+CONFLICT\\b.*?\\bDO\\s+UPDATE\\b(.*)", Pattern.DOTALL);
    private static final Pattern VERSION_PREDICATE = Pattern.compile(
            "(?i)(?<![\\w.])(?:\\w+\\.)?(db_record_version|dbRecordVersion)\\s*=\\s*(?!\\s*(?:\\w+\\.)?(?:db_record_version|dbRecordVersion)\\b)");
    /**
     * Retention's end of runs, the one DELETE of the run row allowed: per row of bound arrays, each run's key and the
     * version it was judged on, and in the statement itself only finished statuses, so a run reset to RUNNING meanwhile
     * is never taken; the ids it deleted are returned.
     */
    public static final Pattern RETENTION_DELETE = Pattern.compile("(?is)^\\s*delete\\s+from\\s+eec_workflow_run"
            + "\\s+using\\s+unnest\\(\\s*cast\\(\\s*\\?\\s+as\\s+uuid\\[\\]\\s*\\)\\s*,\\s*cast\\(\\s*\\?\\s+as\\s+bigint\\[\\]\\s*\\)\\s*\\)"
            + "\\s+as\\s+w\\(\\s*id\\s*,\\s*expected_version\\s*\\)"
            + "\\s+where\\s+run_id\\s*=\\s*w\\.id\\s+and\\s+db_record_version\\s*=\\s*w\\.expected_version"
            + "\\s+and\\s+status\\s+in\\s*\\(\\s*'SUCCEEDED'\\s*,\\s*'FAILED'\\s*,\\s*'CANCELLED'\\s*\\)"
            + "\\s+returning\\s+run_id\\s*$");
    private static final Set<String> NOT_A_STATEMENT_BEFORE_UPDATE = Set.of("for", "key", "do", "on");
    private static final Set<String> NOT_A_TARGET = Set.of("set", "of", "skip", "nowait", "cascade", "restrict", "no", "where");

    private final Schema schema;
    /** Every SQL statement (verb and table) the scanner recognised on a protected table, for the self-check. */
    final Set<String> seen = new LinkedHashSet<>();
    int literals;
    int files;

    SqlWriteScanner(Schema schema) {
        this.schema = schema;
    }

    // ---- schema ---------------------------------------------------------------------------------------------------

    private static final Pattern CREATE_TABLE = Pattern.compile("(?is)CREATE\\s+TABLE\\s+(?:IF\\s+NOT\\s+EXISTS\\s+)?\"?(\\w+)\"?\\s*\\((.*?)\\)\\s*;");
    private static final Pattern ADD_VERSION = Pattern.compile("(?is)ALTER\\s+TABLE\\s+(?:ONLY\\s+)?\"?(\\w+)\"?[^;]*\\bADD\\s+(?:COLUMN\\s+)?(?:IF\\s+NOT\\s+EXISTS\\s+)?db_record_version\\b");
    private static final Pattern UNIQUE_INDEX = Pattern.compile("(?is)CREATE\\s+UNIQUE\\s+INDEX\\s+\\w+\\s+ON\\s+\"?(\\w+)\"?\\s*\\(([^)]*)\\)\\s*(WHERE)?");

    /** Reads tables, keys and version columns from migration SQL (appended in version order). */
    static void learnMigration(Schema schema, String sql) {
        String text = sql.replaceAll("--[^\\n]*", " ");
        Matcher create = CREATE_TABLE.matcher(text);
        while (create.find()) {
            String table = create.group(1).toLowerCase(Locale.ROOT);
            schema.tables.add(table);
            List<List<String>> keys = schema.keys.computeIfAbsent(table, t -> new ArrayList<>());
            boolean versioned = false;
            for (String part : splitTopLevel(create.group(2))) {
                String p = part.trim();
                String lower = p.toLowerCase(Locale.ROOT);
                Matcher constraintKey = Pattern.compile("(?is)^(?:CONSTRAINT\\s+\\w+\\s+)?(PRIMARY\\s+KEY|UNIQUE)\\s*\\(([^)]*)\\)").matcher(p);
                if (constraintKey.find()) {
                    keys.add(columns(constraintKey.group(2)));
                    continue;
                }
                String column = lower.split("\\s+")[0].replace("\"", "");
                if (column.equals("db_record_version")) {
                    versioned = true;
                }
                if (lower.matches("(?s).*\\bprimary\\s+key\\b.*") || lower.matches("(?s).*\\bunique\\b.*")) {
                    keys.add(List.of(column));
                }
            }
            if (versioned) {
                schema.versioned.put(table, keys);
            }
        }
        Matcher alter = ADD_VERSION.matcher(text);
        while (alter.find()) {
            String table = alter.group(1).toLowerCase(Locale.ROOT);
            schema.versioned.put(table, schema.keys.computeIfAbsent(table, t -> new ArrayList<>()));
        }
        Matcher unique = UNIQUE_INDEX.matcher(text);
        while (unique.find()) {
            if (unique.group(3) == null) { // a partial unique index does not identify a row
                schema.keys.computeIfAbsent(unique.group(1).toLowerCase(Locale.ROOT), t -> new ArrayList<>()).add(columns(unique.group(2)));
            }
        }
    }

    private static List<String> columns(String list) {
        List<String> columns = new ArrayList<>();
        for (String c : list.split(",")) {
            columns.add(c.trim().replace("\"", "").toLowerCase(Locale.ROOT));
        }
        return columns;
    }

    private static List<String> splitTopLevel(String body) {
        List<String> parts = new ArrayList<>();
        int depth = 0;
        StringBuilder current = new StringBuilder();
        for (char c : body.toCharArray()) {
            if (c == '(') {
                depth++;
            } else if (c == ')') {
                depth--;
            }
            if (c == ',' && depth == 0) {
                parts.add(current.toString());
                current.setLength(0);
            } else {
                current.append(c);
            }
        }
        parts.add(current.toString());
        return parts;
    }

    private static final Pattern ENTITY_TABLE = Pattern.compile("@Table\\s*\\(\\s*name\\s*=\\s*\"(\\w+)\"");
    private static final Pattern CLASS_NAME = Pattern.compile("\\bclass\\s+(\\w+)");

    /** Maps an {@code @Entity} class to its table (the class name when it has no {@code @Table}). */
    static String learnEntity(Schema schema, String source) {
        if (!source.contains("@Entity")) {
            return null;
        }
        Matcher name = CLASS_NAME.matcher(source);
        if (!name.find()) {
            return null;
        }
        Matcher table = ENTITY_TABLE.matcher(source);
        String mapped = table.find() ? table.group(1) : name.group(1);
        schema.entities.put(name.group(1).toLowerCase(Locale.ROOT), mapped.toLowerCase(Locale.ROOT));
        return name.group(1);
    }

    // ---- Java ----------------------------------------------------------------------------------------------------

    /** A string literal: its value and the source line of each of its characters. */
    private record Literal(String value, int[] lines) {
    }

    /** A Java statement (up to ; { or }): its code with each literal replaced by a numbered marker, and the literals. */
    private record Statement(String code, List<Literal> literals, int line) {
    }

    List<Violation> scanJava(String file, String source) {
        files++;
        List<Statement> statements = lex(source);
        Map<String, String> constants = constants(statements);
        List<Violation> violations = new ArrayList<>();
        Set<String> entities = schema.protectedEntities();
        Set<String> runEntities = new TreeSet<>();
        schema.entities.forEach((entity, table) -> {
            if (table.equals("eec_workflow_run")) {
                runEntities.add(entity);
            }
        });
        boolean repositoryOfProtected = false;
        for (String entity : entities) {
            if (Pattern.compile("(?i)PanacheRepository(?:Base)?\\s*<\\s*" + entity + "\\b").matcher(source).find()) {
                repositoryOfProtected = true;
            }
        }
        Set<String> runVariables = new TreeSet<>();
        for (String entity : runEntities) {
            Matcher declared = Pattern.compile("(?i)\\b" + entity + "\\s+(\\w+)\\s*[=;,)]").matcher(source);
            while (declared.find()) {
                runVariables.add(declared.group(1));
            }
        }
        for (Statement statement : statements) {
            literals += statement.literals().size();
            Joined sql = join(statement, constants);
            if (!sql.text().isBlank()) {
                violations.addAll(scanSql(file, sql.text(), sql.lines(), statement));
            }
            String code = statement.code();
            for (String entity : entities) {
                Matcher bulk = Pattern.compile("(?i)\\b" + entity + "\\s*\\.\\s*(update|delete|deleteAll|deleteById)\\s*\\(").matcher(code);
                if (bulk.find()) {
                    violations.add(new Violation(file, statement.line(), "panache-bulk",
                            "Panache bulk " + bulk.group(1) + "() on " + entity + " (table " + schema.entities.get(entity)
                                    + ") skips the version check: " + excerpt(code)));
                }
                Matcher criteria = Pattern.compile("(?i)(createCriteria(Update|Delete)\\s*\\(\\s*" + entity + "\\s*\\.\\s*class"
                        + "|Criteria(Update|Delete)\\s*<\\s*" + entity + "\\s*>)").matcher(code);
                if (criteria.find()) {
                    violations.add(new Violation(file, statement.line(), "criteria-bulk",
                            "a Criteria bulk update/delete of " + entity + " skips the version check: " + excerpt(code)));
                }
            }
            if (repositoryOfProtected) {
                Matcher call = Pattern.compile("(?:\\.\\s*|^\\s*(?:return\\s+)?|[=(,]\\s*)(update|delete|deleteAll|deleteById)\\s*\\(").matcher(code);
                if (call.find() && !code.matches("(?s).*\\b(public|protected|private|void|int|long)\\s+(update|delete|deleteAll|deleteById)\\s*\\(.*")) {
                    violations.add(new Violation(file, statement.line(), "panache-bulk",
                            "a bulk " + call.group(1) + "() in a repository of a protected entity: " + excerpt(code)));
                }
            }
            for (String variable : runVariables) {
                if (Pattern.compile("(\\b" + Pattern.quote(variable) + "\\s*\\.\\s*delete\\s*\\(\\s*\\)|\\bremove\\s*\\(\\s*"
                        + Pattern.quote(variable) + "\\s*\\))").matcher(code).find()) {
                    violations.add(new Violation(file, statement.line(), "run-delete",
                            "a run is deleted through its entity; runs are never deleted: " + excerpt(code)));
                }
            }
        }
        return violations;
    }

    private static List<Statement> lex(String source) {
        List<Statement> statements = new ArrayList<>();
        StringBuilder code = new StringBuilder();
        List<Literal> literals = new ArrayList<>();
        int line = 1;
        int statementLine = 1;
        int i = 0;
        int n = source.length();
        while (i < n) {
            char c = source.charAt(i);
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '/') {
                while (i < n && source.charAt(i) != '\n') {
                    i++;
                }
                code.append(' ');
                continue;
            }
            if (c == '/' && i + 1 < n && source.charAt(i + 1) == '*') {
                int end = source.indexOf("*/", i + 2);
                end = end < 0 ? n : end + 2;
                line += count(source, i, end);
                i = end;
                code.append(' ');
                continue;
            }
            if (c == '"' && source.startsWith("\"\"\"", i)) {
                int start = source.indexOf('\n', i + 3);
                if (start < 0) {
                    break;
                }
                line += count(source, i, start + 1);
                StringBuilder value = new StringBuilder();
                List<Integer> lines = new ArrayList<>();
                int j = start + 1;
                while (j < n && !source.startsWith("\"\"\"", j)) {
                    char d = source.charAt(j);
                    if (d == '\\' && j + 1 < n) {
                        char e = source.charAt(j + 1);
                        if (e == '\n') {
                            line++;
                        } else {
                            value.append(unescape(e));
                            lines.add(line);
                        }
                        j += 2;
                        continue;
                    }
                    value.append(d);
                    lines.add(line);
                    if (d == '\n') {
                        line++;
                    }
                    j++;
                }
                literals.add(new Literal(value.toString(), lines.stream().mapToInt(Integer::intValue).toArray()));
                code.append(MARK_OPEN).append(literals.size() - 1).append(MARK_CLOSE).append(' ');
                i = Math.min(n, j + 3);
                continue;
            }
            if (c == '"') {
                StringBuilder value = new StringBuilder();
                int j = i + 1;
                while (j < n && source.charAt(j) != '"' && source.charAt(j) != '\n') {
                    char d = source.charAt(j);
                    if (d == '\\' && j + 1 < n) {
                        value.append(unescape(source.charAt(j + 1)));
                        j += 2;
                        continue;
                    }
                    value.append(d);
                    j++;
                }
                int[] lines = new int[value.length()];
                java.util.Arrays.fill(lines, line);
                literals.add(new Literal(value.toString(), lines));
                code.append(MARK_OPEN).append(literals.size() - 1).append(MARK_CLOSE).append(' ');
                i = j + 1;
                continue;
            }
            if (c == '\'') {
                int j = i + 1;
                while (j < n && source.charAt(j) != '\'' && source.charAt(j) != '\n') {
                    j += source.charAt(j) == '\\' ? 2 : 1;
                }
                code.append("' '");
                i = j + 1;
                continue;
            }
            if (c == ';' || c == '{' || c == '}') {
                statements.add(new Statement(code.toString(), List.copyOf(literals), statementLine));
                code.setLength(0);
                literals.clear();
                i++;
                statementLine = line;
                continue;
            }
            if (c == '\n') {
                line++;
                if (code.toString().isBlank()) {
                    statementLine = line;
                }
            }
            code.append(c);
            i++;
        }
        statements.add(new Statement(code.toString(), List.copyOf(literals), statementLine));
        return statements;
    }

    private static char unescape(char e) {
        return switch (e) {
            case 'n' -> '\n';
            case 't' -> '\t';
            case 'r' -> '\r';
            case 's' -> ' ';
            default -> e;
        };
    }

    private static int count(String s, int from, int to) {
        int lines = 0;
        for (int k = from; k < Math.min(to, s.length()); k++) {
            if (s.charAt(k) == '\n') {
                lines++;
            }
        }
        return lines;
    }

    private static final Pattern CONSTANT = Pattern.compile("(?s).*\\bString\\s+(\\w+)\\s*=\\s*((?:\u27e6\\d+\u27e7|\\s|\\+|\\w+)+)\\s*$");

    /** {@code String NAME = "..." (+ "...")*;} declarations, so {@code "UPDATE " + TABLE} reads as the table's name. */
    private static Map<String, String> constants(List<Statement> statements) {
        Map<String, String> constants = new HashMap<>();
        for (int round = 0; round < 2; round++) {
            for (Statement statement : statements) {
                Matcher m = CONSTANT.matcher(statement.code());
                if (m.matches() && !statement.literals().isEmpty()) {
                    Joined joined = join(new Statement(m.group(2), statement.literals(), statement.line()), constants);
                    if (!joined.text().contains(DYNAMIC)) {
                        constants.put(m.group(1), joined.text());
                    }
                }
            }
        }
        return constants;
    }

    private record Joined(String text, int[] lines) {
    }

    /**
     * The statement's SQL as the program would build it: literals joined where {@code +} joins them, constants put
     * in, any other operand of a {@code +} marked dynamic, and separate expressions (arguments) kept apart by ";".
     */
    private static Joined join(Statement statement, Map<String, String> constants) {
        StringBuilder text = new StringBuilder();
        List<Integer> lines = new ArrayList<>();
        Matcher token = MARK.matcher(statement.code());
        int previousEnd = -1;
        int lastLine = statement.line();
        while (token.find()) {
            Literal literal = statement.literals().get(Integer.parseInt(token.group(1)));
            if (previousEnd >= 0) {
                String between = statement.code().substring(previousEnd, token.start());
                String glue = glue(between, constants);
                text.append(glue);
                for (int k = 0; k < glue.length(); k++) {
                    lines.add(lastLine);
                }
            }
            text.append(literal.value());
            for (int l : literal.lines()) {
                lines.add(l);
            }
            if (literal.lines().length > 0) {
                lastLine = literal.lines()[literal.lines().length - 1];
            }
            previousEnd = token.end();
        }
        // A statement that starts with "+ CONSTANT" or "CONSTANT +" around no literal adds nothing.
        return new Joined(text.toString(), lines.stream().mapToInt(Integer::intValue).toArray());
    }

    private static String glue(String between, Map<String, String> constants) {
        String trimmed = between.trim();
        if (trimmed.equals("+")) {
            return "";
        }
        if (trimmed.startsWith("+") && trimmed.endsWith("+")) {
            StringBuilder glue = new StringBuilder();
            for (String operand : trimmed.substring(1, trimmed.length() - 1).split("\\+")) {
                String o = operand.trim();
                glue.append(constants.containsKey(o) ? constants.get(o) : " " + DYNAMIC + " ");
            }
            return glue.toString();
        }
        return EXPRESSIONS_APART;
    }

    /** What {@link #join} puts between two expressions of one statement (arguments, a builder's appends). */
    private static final String EXPRESSIONS_APART = "\n;\n";

    // ---- SQL -----------------------------------------------------------------------------------------------------

    /** Scans an SQL file (not a migration). */
    List<Violation> scanSqlFile(String file, String sql) {
        files++;
        return scanSql(file, withoutComments(sql), linesOf(sql), null);
    }

    /** SQL with its {@code --} comments blanked out, each character where it was. */
    private static String withoutComments(String sql) {
        return Pattern.compile("--[^\\n]*").matcher(sql).replaceAll(m -> " ".repeat(m.group().length()));
    }

    /** The line of each character. */
    private static int[] linesOf(String text) {
        int[] lines = new int[text.length()];
        int line = 1;
        for (int k = 0; k < text.length(); k++) {
            lines[k] = line;
            if (text.charAt(k) == '\n') {
                line++;
            }
        }
        return lines;
    }

    // ---- migrations ------------------------------------------------------------------------------------------------

    private static final Pattern MIGRATION_RUN_WRITE = Pattern.compile("(?is)\\b(update\\s+(only\\s+)?eec_workflow_run\\b[^;]*"
            + "|delete\\s+from\\s+(only\\s+)?eec_workflow_run\\b|truncate\\s+(table\\s+)?(only\\s+)?eec_workflow_run\\b"
            + "|insert\\s+into\\s+eec_workflow_run\\b|merge\\s+into\\s+eec_workflow_run\\b)");
    private static final Pattern VERSION_BUMP = Pattern.compile("(?is)db_record_version\\s*=\\s*db_record_version\\s*\\+\\s*1");

    /**
     * A migration writes the run row only by the versioned UPDATE: a data fix bumps {@code db_record_version} too, with
     * no OR, so a tick that read the row before it loses its race instead of overwriting the fix. Any other write of
     * the row (INSERT, DELETE, TRUNCATE, MERGE) is a violation. Migrations are read by this rule alone: their DDL and
     * their one-off data moves are not the application's writes.
     */
    public static List<Violation> scanMigration(String file, String sql) {
        List<Violation> violations = new ArrayList<>();
        String text = withoutComments(sql);
        int[] lines = linesOf(sql);
        Matcher write = MIGRATION_RUN_WRITE.matcher(text);
        while (write.find()) {
            String statement = write.group();
            boolean versioned = statement.toLowerCase(Locale.ROOT).startsWith("update")
                    && VERSION_BUMP.matcher(statement).find()
                    && !Pattern.compile("(?i)\\bor\\b").matcher(statement).find();
            if (!versioned) {
                violations.add(new Violation(file, lineOf(lines, write.start()), "migration-run-write",
                        "a migration writes runs around the version check: " + excerpt(statement)));
            }
        }
        return violations;
    }

    // ---- the SQL texts of the code ---------------------------------------------------------------------------------

    /**
     * Per main class (the binary name of its file's top-level class), the SQL texts of its source as the program
     * builds them: each expression's literals joined where {@code +} joins them, the file's constants put in, any other
     * operand marked {@code __DYNAMIC__}. Texts that are no SQL (messages, names) are in it too: the rules decide.
     */
    public static Map<String, List<String>> sqlByType(Path mainJava) {
        Map<String, List<String>> texts = new TreeMap<>();
        try (Stream<Path> walk = Files.walk(mainJava)) {
            for (Path file : walk.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
                String type = mainJava.relativize(file).toString().replace(file.getFileSystem().getSeparator(), ".")
                        .replaceAll("\\.java$", "");
                List<Statement> statements = lex(Files.readString(file));
                Map<String, String> constants = constants(statements);
                Set<String> found = new LinkedHashSet<>();
                for (Statement statement : statements) {
                    for (String text : join(statement, constants).text().split(EXPRESSIONS_APART)) {
                        if (!text.isBlank()) {
                            found.add(text);
                        }
                    }
                }
                if (!found.isEmpty()) {
                    texts.put(type, List.copyOf(found));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return texts;
    }

    private List<Violation> scanSql(String file, String sql, int[] lines, Statement statement) {
        List<Violation> violations = new ArrayList<>();
        Matcher update = UPDATE.matcher(sql);
        while (update.find()) {
            String before = previousWord(sql, update.start());
            if (NOT_A_STATEMENT_BEFORE_UPDATE.contains(before)) {
                continue;
            }
            Target target = target(update.group(1));
            if (target == null) {
                continue;
            }
            int at = lineOf(lines, update.start());
            String clause = clause(sql, update.end());
            if (target.dynamic()) {
                violations.add(new Violation(file, at, "dynamic-target", "UPDATE of a table built at run time; write the table"
                        + " name into the SQL so it can be checked: " + excerpt(sql.substring(update.start()))));
                continue;
            }
            String table = target.table();
            if (!schema.isProtected(table)) {
                continue;
            }
            seen.add("UPDATE " + table);
            String where = whereOf(clause);
            String set = setOf(clause);
            if (schema.immutable.contains(table)) {
                violations.add(new Violation(file, at, "immutable", "UPDATE of " + table + ", whose rows are immutable: "
                        + excerpt(sql.substring(update.start()))));
            } else if (schema.versioned.containsKey(table)) {
                checkVersioned(file, at, "UPDATE", table, where, sql.substring(update.start()), violations);
                if (where != null && VERSION_PREDICATE.matcher(where).find() && statement != null && ignoresRowCount(statement.code())) {
                    violations.add(new Violation(file, at, "unchecked-row-count", "a versioned UPDATE of " + table
                            + " whose row count is never read: zero rows (a lost race) would pass silently: "
                            + excerpt(statement.code())));
                }
            } else if (schema.isAggregateEventTable(table)) {
                violations.add(new Violation(file, at, "append-only", "UPDATE of the event stream " + table
                        + "; events are appended, never changed: " + excerpt(sql.substring(update.start()))));
            } else if (!isSetOnceFill(table, set, where)) {
                violations.add(new Violation(file, at, "append-only", "UPDATE of the event table " + table + " that is not a"
                        + " set-once fill (SET c = ... WHERE <key> = ... AND c IS NULL for each column): "
                        + excerpt(sql.substring(update.start()))));
            }
        }
        Matcher delete = DELETE.matcher(sql);
        while (delete.find()) {
            if (previousWord(sql, delete.start()).equals("on")) {
                continue; // ON DELETE CASCADE
            }
            Target target = target(delete.group(1));
            if (target == null) {
                continue;
            }
            int at = lineOf(lines, delete.start());
            if (target.dynamic()) {
                violations.add(new Violation(file, at, "dynamic-target", "DELETE from a table built at run time: "
                        + excerpt(sql.substring(delete.start()))));
                continue;
            }
            String table = target.table();
            if (!schema.isProtected(table)) {
                continue;
            }
            seen.add("DELETE " + table);
            String text = excerpt(sql.substring(delete.start()));
            if (table.equals("eec_workflow_run")) {
                if (!RETENTION_DELETE.matcher(sql.substring(delete.start(), delete.end()) + clause(sql, delete.end())).matches()) {
                    violations.add(new Violation(file, at, "run-delete", "DELETE of runs; a run is deleted only by retention,"
                            + " each row pinned by its key and the version judged, and only while finished"
                            + " (status IN ('SUCCEEDED', 'FAILED', 'CANCELLED')): " + text));
                }
            } else if (schema.immutable.contains(table)) {
                violations.add(new Violation(file, at, "immutable", "DELETE from " + table + ", whose rows runs pin: " + text));
            } else if (schema.isEventTable(table)) {
                violations.add(new Violation(file, at, "append-only", "DELETE from the event table " + table + ": " + text));
            } else {
                checkVersioned(file, at, "DELETE", table, whereOf(clause(sql, delete.end())), sql.substring(delete.start()), violations);
            }
        }
        Matcher truncate = TRUNCATE.matcher(sql);
        while (truncate.find()) {
            Target target = target(truncate.group(1));
            if (target != null && (target.dynamic() || schema.isProtected(target.table()))) {
                violations.add(new Violation(file, lineOf(lines, truncate.start()), "truncate",
                        "TRUNCATE of " + truncate.group(1) + ": " + excerpt(sql.substring(truncate.start()))));
            }
        }
        Matcher insert = INSERT.matcher(sql);
        while (insert.find()) {
            Target target = target(insert.group(1));
            if (target == null || target.dynamic() || !schema.isProtected(target.table())) {
                continue;
            }
            seen.add("INSERT " + target.table());
            Matcher upsert = DO_UPDATE.matcher(clause(sql, insert.end()));
            if (upsert.find()) {
                String doUpdate = upsert.group(1);
                String where = whereOf(doUpdate);
                boolean checked = schema.versioned.containsKey(target.table()) && where != null
                        && VERSION_PREDICATE.matcher(where).find();
                if (!checked) {
                    violations.add(new Violation(file, lineOf(lines, insert.start()), "upsert",
                            "INSERT ... ON CONFLICT DO UPDATE into " + target.table() + " overwrites without the version check: "
                                    + excerpt(sql.substring(insert.start()))));
                }
            }
        }
        Matcher merge = MERGE.matcher(sql);
        while (merge.find()) {
            Target target = target(merge.group(1));
            if (target != null && (target.dynamic() || schema.isProtected(target.table()))) {
                violations.add(new Violation(file, lineOf(lines, merge.start()), "merge",
                        "MERGE INTO " + merge.group(1) + " writes without the version check: " + excerpt(sql.substring(merge.start()))));
            }
        }
        return violations;
    }

    private void checkVersioned(String file, int at, String verb, String table, String where, String statement,
                                List<Violation> violations) {
        String text = excerpt(statement);
        if (where == null) {
            violations.add(new Violation(file, at, "bulk", verb + " of " + table + " without a WHERE: every row, no version check: " + text));
            return;
        }
        if (!VERSION_PREDICATE.matcher(where).find()) {
            violations.add(new Violation(file, at, "no-version-predicate", verb + " of " + table
                    + " without db_record_version = <the version read> in its WHERE: " + text));
        }
        if (!pinsOneRow(table, where)) {
            violations.add(new Violation(file, at, "bulk", verb + " of " + table + " whose WHERE does not pin one row by its key "
                    + schema.keys.getOrDefault(table, List.of()) + ": " + text));
        }
    }

    private boolean pinsOneRow(String table, String where) {
        List<List<String>> keys = schema.keys.getOrDefault(table, List.of());
        for (List<String> key : keys) {
            boolean all = !key.isEmpty();
            for (String column : key) {
                String either = "(?:" + Pattern.quote(column) + "|" + Pattern.quote(camel(column)) + ")";
                if (!Pattern.compile("(?i)(?<![\\w])(?:\\w+\\.)?" + either + "\\s*=\\s*(?!\\s*(?:ANY|SOME|ALL)\\s*\\()").matcher(where).find()) {
                    all = false;
                }
            }
            if (all) {
                return true;
            }
        }
        return false;
    }

    private boolean isSetOnceFill(String table, String set, String where) {
        if (set == null || where == null || !pinsOneRow(table, where)) {
            return false;
        }
        Matcher assignment = Pattern.compile("(?i)(?:^|,)\\s*(?:\\w+\\.)?(\\w+)\\s*=").matcher(set);
        boolean any = false;
        while (assignment.find()) {
            any = true;
            String column = assignment.group(1);
            if (!Pattern.compile("(?i)(?<![\\w])(?:\\w+\\.)?" + Pattern.quote(column) + "\\s+IS\\s+NULL\\b").matcher(where).find()) {
                return false;
            }
        }
        return any;
    }

    private static String camel(String column) {
        StringBuilder out = new StringBuilder();
        boolean upper = false;
        for (char c : column.toCharArray()) {
            if (c == '_') {
                upper = true;
            } else {
                out.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return out.toString();
    }

    private static boolean ignoresRowCount(String code) {
        String c = code.trim();
        if (!c.matches("(?s).*\\.\\s*executeUpdate\\s*\\(\\s*\\)$")) {
            return false; // the count is compared, passed on or returned
        }
        if (c.matches("(?s)^(return|if|while|assert|throw)\\b.*")) {
            return false;
        }
        String head = c.contains("(") ? c.substring(0, c.indexOf('(')) : c;
        return !head.matches("(?s).*[^=!<>]=[^=].*");
    }

    private record Target(String table, boolean dynamic) {
    }

    private Target target(String raw) {
        String name = raw.replace("\"", "").replaceAll("\\s", "");
        if (name.contains(".")) {
            name = name.substring(name.lastIndexOf('.') + 1);
        }
        String lower = name.toLowerCase(Locale.ROOT);
        if (NOT_A_TARGET.contains(lower)) {
            return null;
        }
        if (lower.contains(DYNAMIC.toLowerCase(Locale.ROOT)) || lower.contains("%") || lower.contains("$")) {
            return new Target(lower, true);
        }
        return new Target(schema.entities.getOrDefault(lower, lower), false);
    }

    private static String previousWord(String sql, int index) {
        int end = index;
        while (end > 0 && Character.isWhitespace(sql.charAt(end - 1))) {
            end--;
        }
        int start = end;
        while (start > 0 && Character.isLetter(sql.charAt(start - 1))) {
            start--;
        }
        return sql.substring(start, end).toLowerCase(Locale.ROOT);
    }

    /** The rest of one SQL statement: up to the next ";" (also the separator between Java expressions). */
    private static String clause(String sql, int from) {
        int end = sql.indexOf(';', from);
        return sql.substring(from, end < 0 ? sql.length() : end);
    }

    private static String whereOf(String clause) {
        Matcher where = WHERE.matcher(clause);
        if (!where.find()) {
            return null;
        }
        String rest = clause.substring(where.end());
        Matcher returning = RETURNING.matcher(rest);
        return returning.find() ? rest.substring(0, returning.start()) : rest;
    }

    private static String setOf(String clause) {
        Matcher set = Pattern.compile("(?i)\\bSET\\b").matcher(clause);
        if (!set.find()) {
            return null;
        }
        Matcher where = WHERE.matcher(clause);
        int end = where.find(set.end()) ? where.start() : clause.length();
        return clause.substring(set.end(), end);
    }

    private static int lineOf(int[] lines, int index) {
        if (lines.length == 0) {
            return 0;
        }
        return lines[Math.max(0, Math.min(index, lines.length - 1))];
    }

    private static String excerpt(String text) {
        String flat = text.replaceAll("\\s+", " ").trim();
        return flat.length() > 220 ? flat.substring(0, 220) + "..." : flat;
    }
}
