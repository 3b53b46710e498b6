package com.pagebound.catalog.repository;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import javax.sql.DataSource;

/**
 * JDBC access to the books table. Full-text search uses the Postgres
 * tsvector column maintained by the 003 migration.
 */
public class BookRepository {

    private static final String SELECT_COLUMNS =
            "SELECT isbn, title, authors, publisher, published_on, price_minor, currency, stock, cover_url FROM books ";

    private final DataSource dataSource;

    public BookRepository(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    public Optional<BookEntity> findByIsbn(String isbn) {
        String sql = SELECT_COLUMNS + "WHERE isbn = ?";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, isbn);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? Optional.of(map(rs)) : Optional.empty();
            }
        } catch (SQLException e) {
            throw new RepositoryException("findByIsbn failed for " + isbn, e);
        }
    }

    /**
     * Ranked full-text search over title, authors and description, newest
     * editions first among equal ranks.
     */
    public List<BookEntity> search(String terms, int limit, int offset) {
        String sql = SELECT_COLUMNS
                + "WHERE search_vector @@ websearch_to_tsquery('english', ?) "
                + "ORDER BY ts_rank(search_vector, websearch_to_tsquery('english', ?)) DESC, published_on DESC "
                + "LIMIT ? OFFSET ?";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, terms);
            ps.setString(2, terms);
            ps.setInt(3, limit);
            ps.setInt(4, offset);
            List<BookEntity> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(map(rs));
                }
            }
            return out;
        } catch (SQLException e) {
            throw new RepositoryException("search failed for '" + terms + "'", e);
        }
    }

    public long countMatches(String terms) {
        String sql = "SELECT count(*) FROM books WHERE search_vector @@ websearch_to_tsquery('english', ?)";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setString(1, terms);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getLong(1);
            }
        } catch (SQLException e) {
            throw new RepositoryException("count failed", e);
        }
    }

    public int adjustStock(String isbn, int delta) {
        String sql = "UPDATE books SET stock = stock + ? WHERE isbn = ? AND stock + ? >= 0";
        try (Connection conn = dataSource.getConnection();
             PreparedStatement ps = conn.prepareStatement(sql)) {
            ps.setInt(1, delta);
            ps.setString(2, isbn);
            ps.setInt(3, delta);
            return ps.executeUpdate();
        } catch (SQLException e) {
            throw new RepositoryException("adjustStock failed for " + isbn, e);
        }
    }

    private static BookEntity map(ResultSet rs) throws SQLException {
        BookEntity b = new BookEntity();
        b.isbn = rs.getString("isbn");
        b.title = rs.getString("title");
        b.authors = Arrays.asList((String[]) rs.getArray("authors").getArray());
        b.publisher = rs.getString("publisher");
        b.publishedOn = rs.getObject("published_on", java.time.LocalDate.class);
        b.priceMinor = rs.getLong("price_minor");
        b.currency = rs.getString("currency");
        b.stock = rs.getInt("stock");
        b.coverUrl = rs.getString("cover_url");
        return b;
    }

    /** Row of the books table. */
    public static class BookEntity {
        public String isbn;
        public String title;
        public List<String> authors;
        public String publisher;
        public java.time.LocalDate publishedOn;
        public long priceMinor;
        public String currency;
        public int stock;
        public String coverUrl;
    }

    public static class RepositoryException extends RuntimeException {
        public RepositoryException(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
