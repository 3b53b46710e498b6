package com.pagebound.catalog.dto;

import java.util.List;

/**
 * One page of catalogue search results plus the facet counts shown in the
 * storefront's filter sidebar.
 */
public record SearchResultDto(
        String query,
        List<BookDto> results,
        int page,
        int pageSize,
        long totalHits,
        List<Facet> facets) {

    public record Facet(String field, String value, long count) {}

    public SearchResultDto {
        if (page < 0) {
            throw new IllegalArgumentException("page must be >= 0");
        }
        if (pageSize < 1 || pageSize > 100) {
            throw new IllegalArgumentException("pageSize must be between 1 and 100");
        }
        results = List.copyOf(results);
        facets = List.copyOf(facets);
    }

    public boolean hasNextPage() {
        return (long) (page + 1) * pageSize < totalHits;
    }

    public static SearchResultDto empty(String query, int pageSize) {
        return new SearchResultDto(query, List.of(), 0, pageSize, 0, List.of());
    }
}
