import React, { useState } from "react";
import { formatPrice, truncateTitle } from "../utils/format";

export interface Book {
  isbn: string;
  title: string;
  authors: string[];
  coverUrl?: string;
  priceMinor: number;
  currency: string;
  stock: number;
}

interface BookCardProps {
  book: Book;
  onAddToCart: (isbn: string, quantity: number) => Promise<void>;
}

/** Shows stock as a friendly label rather than the raw count. */
function stockLabel(stock: number): { text: string; tone: "ok" | "low" | "out" } {
  if (stock <= 0) return { text: "Out of stock", tone: "out" };
  if (stock < 5) return { text: `Only ${stock} left`, tone: "low" };
  return { text: "In stock", tone: "ok" };
}

/**
 * Product tile used on the home page and search results: cover, title,
 * authors, price, stock badge and an "Add to basket" button.
 */
export function BookCard({ book, onAddToCart }: BookCardProps) {
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState(false);
  const stock = stockLabel(book.stock);

  async function handleAdd() {
    setAdding(true);
    try {
      await onAddToCart(book.isbn, 1);
      setAdded(true);
      window.setTimeout(() => setAdded(false), 2000);
    } finally {
      setAdding(false);
    }
  }

  return (
    <article className="book-card">
      <img
        src={book.coverUrl ?? "/img/cover-placeholder.svg"}
        alt={`Cover of ${book.title}`}
        loading="lazy"
        width={160}
        height={240}
      />
      <h3 title={book.title}>{truncateTitle(book.title)}</h3>
      <p className="book-card__authors">{book.authors.join(", ")}</p>
      <p className="book-card__price">{formatPrice(book.priceMinor, book.currency)}</p>
      <span className={`badge badge--${stock.tone}`}>{stock.text}</span>
      <button type="button" onClick={handleAdd} disabled={adding || stock.tone === "out"}>
        {added ? "Added ✓" : adding ? "Adding…" : "Add to basket"}
      </button>
    </article>
  );
}

export default BookCard;
