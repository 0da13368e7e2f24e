package dev.dml.ray.runs;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * The run store's reads, written once: the parameters bound in order, the rows handed on, the
 * statement and its result closed. Runs inside {@link RunStore#read}, which holds the lock and
 * turns an {@link SQLException} into one line.
 */
final class Sql {

    private Sql() {}

    /** Takes one row of a result. */
    @FunctionalInterface
    interface Row {
        void read(ResultSet rs) throws SQLException;
    }

    /** Makes a value of a row, or of a whole result. */
    @FunctionalInterface
    interface Value<T> {
        T of(ResultSet rs) throws SQLException;
    }

    /**
     * Runs a query and hands each row of its result on.
     *
     * @param db the store's connection
     * @param sql the query, with a {@code ?} per parameter
     * @param row takes each row, in order
     * @param params the parameters, in order
     * @throws SQLException when the query fails
     */
    static void forEach(Connection db, String sql, Row row, Object... params)
            throws SQLException {
        query(db, sql, params, rs -> {
            while (rs.next()) {
                row.read(rs);
            }
            return null;
        });
    }

    /**
     * Runs a query and makes a value of its first row.
     *
     * @param db the store's connection
     * @param sql the query, with a {@code ?} per parameter
     * @param value makes the value of the first row
     * @param params the parameters, in order
     * @param <T> the value's type
     * @return the value, or null when the result has no row
     * @throws SQLException when the query fails
     */
    static <T> T first(Connection db, String sql, Value<T> value, Object... params)
            throws SQLException {
        return query(db, sql, params, rs -> rs.next() ? value.of(rs) : null);
    }

    private static <T> T query(Connection db, String sql, Object[] params, Value<T> result)
            throws SQLException {
        try (PreparedStatement s = db.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                s.setObject(i + 1, params[i]);
            }
            try (ResultSet rs = s.executeQuery()) {
                return result.of(rs);
            }
        }
    }
}
