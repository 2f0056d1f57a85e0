// Prepares the PostgreSQL the chain3 benchmark runs on: creates the two databases if they are missing (Ductor's
// and the reference's, kept apart so neither side sees the other's tables or bloat), adds pg_stat_statements to
// each (profiling aid; best effort, an external server may not preload it) and drops the reference's table so
// the reference starts from an empty one, as Ductor does on a fresh database.
//
// usage: java -cp <pgjdbc.jar> bench/chain3/PgSetup.java <admin-jdbc-url> <user> <password> <ductor-db> <ref-db>
//   admin-jdbc-url: any database of the server the user may connect to (CREATE DATABASE runs there)
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

public class PgSetup {
    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: PgSetup <admin-jdbc-url> <user> <password> <ductor-db> <ref-db>");
            System.exit(2);
        }
        String url = args[0], user = args[1], password = args[2];
        DriverManager.setLoginTimeout(30);
        try (Connection admin = DriverManager.getConnection(url, user, password)) {
            for (String db : new String[] {args[3], args[4]}) {
                if (!exists(admin, db)) {
                    try (Statement s = admin.createStatement()) {
                        s.execute("CREATE DATABASE \"" + db.replace("\"", "\"\"") + "\"");
                    }
                    System.err.println("created database " + db);
                }
            }
        }
        for (String db : new String[] {args[3], args[4]}) {
            try (Connection c = DriverManager.getConnection(withDatabase(url, db), user, password);
                    Statement s = c.createStatement()) {
                try {
                    s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                } catch (SQLException e) {
                    System.err.println("pg_stat_statements unavailable in " + db + " (profiling only): " + e.getMessage());
                }
                if (db.equals(args[4])) {
                    s.execute("DROP TABLE IF EXISTS ref_run");
                }
            }
        }
    }

    static boolean exists(Connection c, String db) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            ps.setString(1, db);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    // jdbc:postgresql://host:port/db?params -> the same with another db
    static String withDatabase(String url, String db) {
        int q = url.indexOf('?');
        String base = q < 0 ? url : url.substring(0, q), params = q < 0 ? "" : url.substring(q);
        int slash = base.indexOf('/', "jdbc:postgresql://".length());
        return (slash < 0 ? base : base.substring(0, slash)) + "/" + db + params;
    }
}
