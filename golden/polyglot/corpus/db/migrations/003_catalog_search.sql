-- 003_catalog_search.sql
-- Full-text search over the catalogue for the Java catalogue service.

ALTER TABLE books
    ADD COLUMN description TEXT,
    ADD COLUMN search_vector tsvector;

UPDATE books
SET search_vector =
    setweight(to_tsvector('english', coalesce(title, '')), 'A') ||
    setweight(to_tsvector('english', array_to_string(authors, ' ')), 'B') ||
    setweight(to_tsvector('english', coalesce(description, '')), 'C');

CREATE INDEX books_search_vector_idx ON books USING gin (search_vector);

-- Co-purchase statistics for "customers who bought this also bought".
CREATE TABLE book_co_purchases (
    isbn            CHAR(13) NOT NULL REFERENCES books (isbn),
    other_isbn      CHAR(13) NOT NULL REFERENCES books (isbn),
    times_together  INTEGER  NOT NULL DEFAULT 0,
    refreshed_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (isbn, other_isbn)
);

CREATE INDEX book_co_purchases_rank_idx
    ON book_co_purchases (isbn, times_together DESC);
