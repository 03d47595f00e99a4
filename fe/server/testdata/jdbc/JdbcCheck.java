// JdbcCheck drives an Inlet FE through MariaDB Connector/J the way a Java
// application and a database IDE (DBeaver, IntelliJ) do, and prints every
// answer in one canonical text form that TestConnectorJ compares with hand-
// derived expectations. Run: java -cp mariadb-java-client.jar JdbcCheck.java
// HOST:PORT. Everything runs in one JVM because starting one is slow.

import java.math.BigDecimal;
import java.sql.*;

public class JdbcCheck {
    static final StringBuilder out = new StringBuilder();

    static void line(String s) {
        out.append(s).append('\n');
    }

    // value prints one column by its JDBC type through the typed getter, so
    // the text and binary protocols are held to the same Java values.
    static String value(ResultSet rs, int i, int type) throws SQLException {
        String v;
        switch (type) {
            case Types.TINYINT: case Types.SMALLINT: case Types.INTEGER: case Types.BIGINT:
                v = Long.toString(rs.getLong(i));
                break;
            case Types.BIT: case Types.BOOLEAN:
                v = Boolean.toString(rs.getBoolean(i));
                break;
            case Types.DECIMAL: case Types.NUMERIC: {
                BigDecimal d = rs.getBigDecimal(i);
                v = d == null ? null : d.toPlainString();
                break;
            }
            case Types.REAL: case Types.FLOAT: case Types.DOUBLE:
                v = Double.toString(rs.getDouble(i));
                break;
            case Types.DATE: {
                Date d = rs.getDate(i);
                v = d == null ? null : d.toString();
                break;
            }
            case Types.TIMESTAMP: {
                Timestamp t = rs.getTimestamp(i);
                v = t == null ? null : t.toString();
                break;
            }
            default:
                v = rs.getString(i);
        }
        return rs.wasNull() ? "NULL" : v;
    }

    // rows prints a result: a header of label:TYPE(precision,scale), then
    // one line per row.
    static void rows(String label, ResultSet rs) throws SQLException {
        ResultSetMetaData m = rs.getMetaData();
        StringBuilder h = new StringBuilder("== " + label + ":");
        int n = m.getColumnCount();
        int[] types = new int[n + 1];
        for (int i = 1; i <= n; i++) {
            types[i] = m.getColumnType(i);
            h.append(' ').append(m.getColumnLabel(i)).append(':').append(m.getColumnTypeName(i))
                    .append('(').append(m.getPrecision(i)).append(',').append(m.getScale(i)).append(')');
        }
        line(h.toString());
        while (rs.next()) {
            StringBuilder r = new StringBuilder();
            for (int i = 1; i <= n; i++) {
                if (i > 1) r.append('|');
                r.append(value(rs, i, types[i]));
            }
            line(r.toString());
        }
        rs.close();
    }

    // meta prints the named columns of a DatabaseMetaData result.
    static void meta(String label, ResultSet rs, String... cols) throws SQLException {
        line("== " + label);
        while (rs.next()) {
            StringBuilder r = new StringBuilder();
            for (int i = 0; i < cols.length; i++) {
                if (i > 0) r.append('|');
                String v = rs.getString(cols[i]);
                r.append(rs.wasNull() ? "NULL" : v);
            }
            line(r.toString());
        }
        rs.close();
    }

    interface Check {
        void run() throws Exception;
    }

    // attempt prints an error in place of the answer, so one failure does
    // not hide the checks after it.
    static void attempt(String label, Check c) {
        try {
            c.run();
        } catch (Exception e) {
            line("== " + label + " FAILED: " + e);
        }
    }

    static void queries(Connection c) throws Exception {
        attempt("typed", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT * FROM typed WHERE id >= ? ORDER BY id")) {
                p.setInt(1, 1);
                rows("typed", p.executeQuery());
            }
        });
        attempt("params", () -> {
            try (PreparedStatement p = c.prepareStatement(
                    "SELECT id, s FROM typed WHERE s = ? OR amt = ? OR dt = ? OR ts = ? OR bi = ? OR d < ? ORDER BY id")) {
                p.setString(1, "it's");
                p.setBigDecimal(2, new BigDecimal("-0.50"));
                p.setDate(3, Date.valueOf("2026-02-28"));
                p.setTimestamp(4, Timestamp.valueOf("2026-05-06 07:08:09.123"));
                p.setLong(5, 9007199254740993L);
                p.setNull(6, Types.DOUBLE);
                rows("params", p.executeQuery());
            }
        });
        attempt("nullparam", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT count(*) AS n FROM typed WHERE b = ? OR s <=> ?")) {
                p.setBoolean(1, true);
                p.setNull(2, Types.VARCHAR);
                rows("nullparam", p.executeQuery());
            }
        });
        attempt("join", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT c.name, count(*) AS n, sum(o.qty) AS q FROM orders o JOIN customers c "
                    + "ON o.customer_id = c.id WHERE o.ordered_at >= ? GROUP BY c.name ORDER BY c.name")) {
                p.setTimestamp(1, Timestamp.valueOf("2026-04-02 00:00:00"));
                rows("join", p.executeQuery());
            }
        });
        attempt("union", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT id, name, price FROM fl.fluss_test.lake_log WHERE id > ? ORDER BY id")) {
                p.setLong(1, 1);
                rows("union", p.executeQuery());
            }
        });
        attempt("pk", () -> {
            try (Statement s = c.createStatement()) {
                rows("pk", s.executeQuery("SELECT * FROM fl.fluss_test.pk_basic ORDER BY id"));
            }
        });
        attempt("wide", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT ? AS a, NULL AS b, 'x' AS c, 2.50 AS d, NULL AS e, 6 AS f, 7 AS g, "
                    + "NULL AS h, ? AS i, CAST('2026-01-02 03:04:05' AS DATETIME) AS j, CAST(? AS DATETIME(6)) AS k, CAST(? AS DOUBLE) AS l")) {
                p.setInt(1, 1);
                p.setString(2, "nine");
                p.setString(3, "2026-01-02 03:04:05.123456");
                p.setDouble(4, 0.1);
                rows("wide", p.executeQuery());
            }
        });
    }

    static void metadata(Connection c) throws Exception {
        DatabaseMetaData md = c.getMetaData();
        attempt("catalogs", () -> meta("catalogs", md.getCatalogs(), "TABLE_CAT"));
        attempt("schemas", () -> meta("schemas", md.getSchemas(), "TABLE_SCHEM"));
        attempt("tables", () -> meta("tables", md.getTables("demo", null, "%", null), "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
        attempt("columns", () -> meta("columns", md.getColumns("demo", null, "typed", "%"), "COLUMN_NAME", "DATA_TYPE", "TYPE_NAME",
                "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "IS_NULLABLE", "ORDINAL_POSITION", "REMARKS"));
        attempt("primaryKeys", () -> meta("primaryKeys", md.getPrimaryKeys("demo", null, "typed"), "TABLE_NAME", "COLUMN_NAME", "KEY_SEQ", "PK_NAME"));
        attempt("primaryKeys dup", () -> meta("primaryKeys dup", md.getPrimaryKeys("demo", null, "products"), "COLUMN_NAME"));
        attempt("indexInfo", () -> meta("indexInfo", md.getIndexInfo("demo", null, "typed", false, false), "TABLE_NAME", "NON_UNIQUE",
                "INDEX_NAME", "ORDINAL_POSITION", "COLUMN_NAME"));
        attempt("importedKeys", () -> meta("importedKeys", md.getImportedKeys("demo", null, "typed"), "PKTABLE_NAME"));
        attempt("exportedKeys", () -> meta("exportedKeys", md.getExportedKeys("demo", null, "typed"), "FKTABLE_NAME"));
        attempt("procedures", () -> meta("procedures", md.getProcedures("demo", null, "%"), "PROCEDURE_NAME"));
        attempt("functions", () -> meta("functions", md.getFunctions("demo", null, "%"), "FUNCTION_NAME"));
        attempt("typeInfo", () -> {
            ResultSet rs = md.getTypeInfo();
            boolean decimal = false;
            int n = 0;
            while (rs.next()) {
                n++;
                decimal |= rs.getString("TYPE_NAME").equals("DECIMAL") && rs.getInt("DATA_TYPE") == Types.DECIMAL;
            }
            line("== typeInfo");
            line("rows>20=" + (n > 20) + " decimal=" + decimal);
        });
        attempt("isolation", () -> {
            line("== isolation");
            c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
            line("" + c.getTransactionIsolation());
            c.setTransactionIsolation(Connection.TRANSACTION_SERIALIZABLE);
            line("" + c.getTransactionIsolation());
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT @@tx_isolation, @@transaction_isolation")) {
                rs.next();
                line(rs.getString(1) + "|" + rs.getString(2));
            }
        });
        attempt("resultMeta", () -> {
            try (Statement s = c.createStatement()) {
                ResultSet rs = s.executeQuery("SELECT amt, ts, b, s FROM typed WHERE id = 1");
                ResultSetMetaData m = rs.getMetaData();
                line("== resultMeta");
                for (int i = 1; i <= m.getColumnCount(); i++) {
                    line(m.getColumnLabel(i) + "|" + m.getColumnTypeName(i) + "|" + m.getColumnType(i) + "|" + m.getPrecision(i) + "|"
                            + m.getScale(i) + "|" + m.getColumnClassName(i) + "|" + m.isNullable(i));
                }
                rs.close();
            }
        });
    }

    // fluss addresses a Fluss database as Doris does: catalog.db in the URL.
    static void fluss(Connection c) throws Exception {
        DatabaseMetaData md = c.getMetaData();
        attempt("fluss catalogs", () -> meta("fluss catalogs", md.getCatalogs(), "TABLE_CAT"));
        attempt("fluss tables", () -> meta("fluss tables", md.getTables("fluss_test", null, "lake%", null), "TABLE_CAT", "TABLE_NAME", "TABLE_TYPE", "REMARKS"));
        attempt("fluss columns", () -> meta("fluss columns", md.getColumns("fluss_test", null, "log_basic", "%"), "COLUMN_NAME", "DATA_TYPE",
                "TYPE_NAME", "COLUMN_SIZE", "DECIMAL_DIGITS", "NULLABLE", "IS_NULLABLE", "REMARKS"));
        attempt("fluss primaryKeys", () -> meta("fluss primaryKeys", md.getPrimaryKeys("fluss_test", null, "pk_basic"), "COLUMN_NAME", "KEY_SEQ", "PK_NAME"));
        attempt("fluss query", () -> {
            try (PreparedStatement p = c.prepareStatement("SELECT count(*) AS n, sum(price) AS total FROM lake_log WHERE name LIKE ?")) {
                p.setString(1, "%");
                rows("fluss query", p.executeQuery());
            }
        });
    }

    public static void main(String[] args) throws Exception {
        String base = "jdbc:mariadb://" + args[0] + "/";
        for (String mode : new String[] {"false", "true"}) {
            line("## useServerPrepStmts=" + mode);
            try (Connection c = DriverManager.getConnection(base + "demo?useServerPrepStmts=" + mode, "root", "")) {
                queries(c);
            }
        }
        line("## metadata");
        try (Connection c = DriverManager.getConnection(base + "demo", "root", "")) {
            metadata(c);
        }
        line("## fl.fluss_test");
        try (Connection c = DriverManager.getConnection(base + "fl.fluss_test?useServerPrepStmts=true", "root", "")) {
            fluss(c);
        }
        System.out.print(out);
    }
}
