import { useEffect, useState } from "react";
import { useDebounce } from "../hooks/useDebounce";
import { api } from "../utils/apiClient";
import { truncateTitle } from "../utils/format";

/**
 * Type-ahead search over the catalogue. Results are fetched after the user
 * pauses typing; stale responses from earlier queries are ignored.
 */
export default function SearchBar({ onSelect, minChars = 2 }) {
  const [query, setQuery] = useState("");
  const [results, setResults] = useState([]);
  const [loading, setLoading] = useState(false);
  const [highlighted, setHighlighted] = useState(-1);
  const debouncedQuery = useDebounce(query, 250);

  useEffect(() => {
    if (debouncedQuery.trim().length < minChars) {
      setResults([]);
      return undefined;
    }
    let cancelled = false;
    setLoading(true);
    api
      .searchBooks(debouncedQuery.trim())
      .then((body) => {
        if (!cancelled) setResults(body.results.slice(0, 8));
      })
      .catch(() => {
        if (!cancelled) setResults([]);
      })
      .finally(() => {
        if (!cancelled) setLoading(false);
      });
    return () => {
      cancelled = true;
    };
  }, [debouncedQuery, minChars]);

  function handleKeyDown(event) {
    if (event.key === "ArrowDown") {
      event.preventDefault();
      setHighlighted((i) => Math.min(i + 1, results.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setHighlighted((i) => Math.max(i - 1, 0));
    } else if (event.key === "Enter" && highlighted >= 0) {
      onSelect(results[highlighted]);
      setQuery("");
    } else if (event.key === "Escape") {
      setResults([]);
    }
  }

  return (
    <div className="search-bar" role="combobox" aria-expanded={results.length > 0}>
      <input
        type="search"
        placeholder="Search by title, author or ISBN"
        value={query}
        onChange={(e) => {
          setQuery(e.target.value);
          setHighlighted(-1);
        }}
        onKeyDown={handleKeyDown}
        aria-autocomplete="list"
      />
      {loading && <span className="search-bar__spinner" aria-label="Searching" />}
      {results.length > 0 && (
        <ul className="search-bar__results" role="listbox">
          {results.map((book, index) => (
            <li
              key={book.isbn}
              role="option"
              aria-selected={index === highlighted}
              onMouseDown={() => onSelect(book)}
            >
              <strong>{truncateTitle(book.title, 50)}</strong>
              <span>{book.authors.join(", ")}</span>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
