package com.pagebound.catalog.service;

import com.pagebound.catalog.dto.BookDto;
import com.pagebound.catalog.dto.SearchResultDto;
import com.pagebound.catalog.repository.BookRepository;
import com.pagebound.catalog.repository.BookRepository.BookEntity;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.text.Normalizer;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;
import java.util.stream.Collectors;

/**
 * Application service behind the catalogue endpoints: search, book detail,
 * "customers also bought" recommendations and stock adjustments.
 *
 * <p>Search results are cached for a short time because the home page and
 * the type-ahead box issue the same handful of popular queries constantly.
 */
public class CatalogService {

    private static final Logger LOG = Logger.getLogger(CatalogService.class.getName());

    private static final int MAX_QUERY_LENGTH = 200;
    private static final int DEFAULT_PAGE_SIZE = 20;
    private static final Duration SEARCH_CACHE_TTL = Duration.ofSeconds(60);
    private static final int SEARCH_CACHE_MAX_ENTRIES = 5_000;
    private static final Set<String> STOP_WORDS = Set.of("the", "a", "an", "of", "and", "by");

    private final BookRepository books;
    private final RecommendationStore recommendations;
    private final HttpClient http;
    private final URI pricingBaseUri;
    private final Clock clock;
    private final Map<String, CachedPage> searchCache;

    public CatalogService(BookRepository books, RecommendationStore recommendations,
                          URI pricingBaseUri, Clock clock) {
        this.books = books;
        this.recommendations = recommendations;
        this.pricingBaseUri = pricingBaseUri;
        this.clock = clock;
        this.http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        this.searchCache = new ConcurrentHashMap<>();
    }

    // ------------------------------------------------------------------
    // Search
    // ------------------------------------------------------------------

    private record CachedPage(SearchResultDto page, Instant expiresAt) {}

    /**
     * Normalises a raw search string: strips accents, lower-cases, removes
     * punctuation and stop words. "The Hobbit!" and "hobbit" hit the same
     * cache entry and the same tsquery.
     */
    static String normaliseQuery(String raw) {
        if (raw == null) {
            return "";
        }
        String stripped = Normalizer.normalize(raw, Normalizer.Form.NFD)
                .replaceAll("\\p{M}", "")
                .toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9\\s-]", " ");
        return java.util.Arrays.stream(stripped.split("\\s+"))
                .filter(t -> !t.isBlank() && !STOP_WORDS.contains(t))
                .collect(Collectors.joining(" "));
    }

    /** Looks like an ISBN-10/13 once hyphens and spaces are removed. */
    static boolean looksLikeIsbn(String raw) {
        String digits = raw.replaceAll("[\\s-]", "");
        return digits.matches("\\d{13}") || digits.matches("\\d{9}[\\dXx]");
    }

    /**
     * Searches the catalogue. An ISBN short-circuits to an exact lookup;
     * anything else goes to full-text search with results cached for a minute.
     */
    public SearchResultDto search(String rawQuery, int page, Integer requestedPageSize) {
        if (rawQuery != null && rawQuery.length() > MAX_QUERY_LENGTH) {
            throw new IllegalArgumentException("query longer than " + MAX_QUERY_LENGTH + " characters");
        }
        int pageSize = requestedPageSize == null ? DEFAULT_PAGE_SIZE : requestedPageSize;
        if (rawQuery != null && looksLikeIsbn(rawQuery)) {
            String isbn = rawQuery.replaceAll("[\\s-]", "");
            return books.findByIsbn(isbn)
                    .map(b -> new SearchResultDto(rawQuery, List.of(toDto(b)), 0, pageSize, 1, List.of()))
                    .orElseGet(() -> SearchResultDto.empty(rawQuery, pageSize));
        }
        String query = normaliseQuery(rawQuery);
        if (query.isEmpty()) {
            return SearchResultDto.empty("", pageSize);
        }
        String cacheKey = query + "|" + page + "|" + pageSize;
        CachedPage cached = searchCache.get(cacheKey);
        Instant now = clock.instant();
        if (cached != null && cached.expiresAt().isAfter(now)) {
            return cached.page();
        }
        List<BookEntity> hits = books.search(query, pageSize, page * pageSize);
        long total = books.countMatches(query);
        List<BookDto> dtos = hits.stream().map(CatalogService::toDto).toList();
        SearchResultDto result = new SearchResultDto(query, dtos, page, pageSize, total, facetsFor(dtos));
        putInCache(cacheKey, new CachedPage(result, now.plus(SEARCH_CACHE_TTL)));
        return result;
    }

    private void putInCache(String key, CachedPage page) {
        if (searchCache.size() >= SEARCH_CACHE_MAX_ENTRIES) {
            Instant now = clock.instant();
            searchCache.entrySet().removeIf(e -> e.getValue().expiresAt().isBefore(now));
            if (searchCache.size() >= SEARCH_CACHE_MAX_ENTRIES) {
                // Still full of live entries: drop everything rather than grow without bound.
                LOG.warning("search cache full; clearing " + searchCache.size() + " entries");
                searchCache.clear();
            }
        }
        searchCache.put(key, page);
    }

    /** Invalidate cached searches after a catalogue import or price change. */
    public void invalidateSearchCache() {
        searchCache.clear();
    }

    /** Counts results by publisher and by availability for the filter sidebar. */
    private static List<SearchResultDto.Facet> facetsFor(List<BookDto> results) {
        Map<String, Long> byPublisher = results.stream()
                .filter(b -> b.getPublisher() != null)
                .collect(Collectors.groupingBy(BookDto::getPublisher, LinkedHashMap::new, Collectors.counting()));
        List<SearchResultDto.Facet> facets = new ArrayList<>();
        byPublisher.forEach((publisher, count) -> facets.add(new SearchResultDto.Facet("publisher", publisher, count)));
        long inStock = results.stream().filter(BookDto::isInStock).count();
        facets.add(new SearchResultDto.Facet("availability", "in_stock", inStock));
        facets.add(new SearchResultDto.Facet("availability", "out_of_stock", results.size() - inStock));
        return facets;
    }

    // ------------------------------------------------------------------
    // Detail and recommendations
    // ------------------------------------------------------------------

    public Optional<BookDto> getBook(String isbn) {
        return books.findByIsbn(isbn.replaceAll("[\\s-]", "")).map(CatalogService::toDto);
    }

    /**
     * "Customers who bought this also bought": co-purchase counts from the
     * recommendation store, dropping out-of-stock titles and the book itself.
     */
    public List<BookDto> alsoBought(String isbn, int limit) {
        Map<String, Integer> coPurchases = recommendations.coPurchaseCounts(isbn);
        return coPurchases.entrySet().stream()
                .filter(e -> !e.getKey().equals(isbn))
                .sorted(Map.Entry.<String, Integer>comparingByValue(Comparator.reverseOrder()))
                .map(e -> books.findByIsbn(e.getKey()))
                .flatMap(Optional::stream)
                .map(CatalogService::toDto)
                .filter(BookDto::isInStock)
                .limit(limit)
                .toList();
    }

    // ------------------------------------------------------------------
    // Stock and prices
    // ------------------------------------------------------------------

    /**
     * Applies a stock delta from a goods-in delivery or a stock take.
     * Rejects adjustments that would take stock below zero.
     */
    public void adjustStock(String isbn, int delta, String reason) {
        if (delta == 0) {
            return;
        }
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a reason is required for stock adjustments");
        }
        int updated = books.adjustStock(isbn, delta);
        if (updated == 0) {
            throw new IllegalStateException("stock for " + isbn + " would go negative or book does not exist");
        }
        LOG.info(() -> "stock " + isbn + " adjusted by " + delta + " (" + reason + ")");
        invalidateSearchCache();
    }

    /**
     * Fetches the live price for a book from the pricing service, retrying
     * twice on 5xx or I/O errors with a short linear backoff. Falls back to
     * the catalogue list price when pricing is unavailable.
     */
    public long currentPriceMinor(BookEntity book) {
        HttpRequest request = HttpRequest.newBuilder(pricingBaseUri.resolve("/prices/" + book.isbn))
                .timeout(Duration.ofSeconds(2))
                .GET()
                .build();
        for (int attempt = 1; attempt <= 3; attempt++) {
            try {
                HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
                if (response.statusCode() == 200) {
                    return parseAmountMinor(response.body());
                }
                if (response.statusCode() < 500) {
                    break;
                }
            } catch (java.io.IOException e) {
                LOG.warning("pricing call failed (attempt " + attempt + "): " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            try {
                Thread.sleep(100L * attempt);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        return book.priceMinor;
    }

    static long parseAmountMinor(String json) {
        int idx = json.indexOf("\"amountMinor\"");
        if (idx < 0) {
            throw new IllegalArgumentException("no amountMinor in pricing response");
        }
        int colon = json.indexOf(':', idx);
        int end = colon + 1;
        while (end < json.length() && (Character.isWhitespace(json.charAt(end)) || Character.isDigit(json.charAt(end)))) {
            end++;
        }
        return Long.parseLong(json.substring(colon + 1, end).trim());
    }

    private static BookDto toDto(BookEntity b) {
        return new BookDto(b.isbn, b.title, b.authors, b.publisher, b.publishedOn,
                b.priceMinor, b.currency, b.stock, b.coverUrl);
    }

    /** Source of co-purchase statistics, refreshed nightly from order lines. */
    public interface RecommendationStore {
        Map<String, Integer> coPurchaseCounts(String isbn);
    }
}
