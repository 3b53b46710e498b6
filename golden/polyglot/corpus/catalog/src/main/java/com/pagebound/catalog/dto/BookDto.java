package com.pagebound.catalog.dto;

import java.time.LocalDate;
import java.util.List;
import java.util.Objects;

/**
 * Book as exposed by the catalogue API. Immutable; built from a
 * {@link com.pagebound.catalog.repository.BookRepository.BookEntity} by the service layer.
 */
public final class BookDto {

    private final String isbn;
    private final String title;
    private final List<String> authors;
    private final String publisher;
    private final LocalDate publishedOn;
    private final long priceMinor;
    private final String currency;
    private final int stock;
    private final String coverUrl;

    public BookDto(String isbn, String title, List<String> authors, String publisher,
                   LocalDate publishedOn, long priceMinor, String currency, int stock, String coverUrl) {
        this.isbn = Objects.requireNonNull(isbn, "isbn");
        this.title = Objects.requireNonNull(title, "title");
        this.authors = List.copyOf(authors);
        this.publisher = publisher;
        this.publishedOn = publishedOn;
        this.priceMinor = priceMinor;
        this.currency = currency;
        this.stock = stock;
        this.coverUrl = coverUrl;
    }

    public String getIsbn() { return isbn; }
    public String getTitle() { return title; }
    public List<String> getAuthors() { return authors; }
    public String getPublisher() { return publisher; }
    public LocalDate getPublishedOn() { return publishedOn; }
    public long getPriceMinor() { return priceMinor; }
    public String getCurrency() { return currency; }
    public int getStock() { return stock; }
    public String getCoverUrl() { return coverUrl; }

    public boolean isInStock() {
        return stock > 0;
    }

    @Override
    public boolean equals(Object o) {
        if (this == o) return true;
        if (!(o instanceof BookDto)) return false;
        return isbn.equals(((BookDto) o).isbn);
    }

    @Override
    public int hashCode() {
        return isbn.hashCode();
    }

    @Override
    public String toString() {
        return "BookDto{isbn=" + isbn + ", title=" + title + "}";
    }
}
