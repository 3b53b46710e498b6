// kiosk_search.cpp - offline title search for the in-store kiosks.
//
// Kiosks sync a snapshot of the catalogue every night and search it locally
// so that a flaky shop Wi-Fi connection doesn't break "find a book".
#include <algorithm>
#include <cctype>
#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "lru_cache.hpp"

namespace pagebound {

struct KioskBook {
    std::string isbn;
    std::string title;
    std::string author;
    std::string shelf;  // e.g. "Fiction A-C, bay 4"
};

namespace {

std::vector<std::string> tokenize(const std::string& text) {
    std::vector<std::string> tokens;
    std::string current;
    for (char ch : text) {
        if (std::isalnum(static_cast<unsigned char>(ch))) {
            current.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
        } else if (!current.empty()) {
            tokens.push_back(current);
            current.clear();
        }
    }
    if (!current.empty()) {
        tokens.push_back(current);
    }
    return tokens;
}

}  // namespace

class KioskIndex {
public:
    KioskIndex() : cache_(512, std::chrono::minutes(10)) {}

    // Loads the nightly tab-separated snapshot: isbn, title, author, shelf.
    bool loadSnapshot(const std::string& path) {
        std::ifstream in(path);
        if (!in) {
            return false;
        }
        books_.clear();
        postings_.clear();
        std::string line;
        while (std::getline(in, line)) {
            std::istringstream fields(line);
            KioskBook book;
            if (!std::getline(fields, book.isbn, '\t') || !std::getline(fields, book.title, '\t') ||
                !std::getline(fields, book.author, '\t') || !std::getline(fields, book.shelf)) {
                continue;  // skip malformed rows rather than failing the whole sync
            }
            const std::size_t id = books_.size();
            books_.push_back(book);
            for (const auto& token : tokenize(book.title + " " + book.author)) {
                postings_[token].push_back(id);
            }
        }
        return true;
    }

    // Returns books matching every query term (title or author), sorted by
    // title; results for repeated queries come from the LRU cache.
    std::vector<KioskBook> search(const std::string& query, std::size_t limit = 10) {
        if (auto cached = cache_.get(query)) {
            return *cached;
        }
        const auto terms = tokenize(query);
        if (terms.empty()) {
            return {};
        }
        std::unordered_map<std::size_t, int> scores;
        for (const auto& term : terms) {
            auto it = postings_.find(term);
            if (it == postings_.end()) {
                return {};
            }
            std::unordered_set<std::size_t> seen;
            for (std::size_t id : it->second) {
                if (seen.insert(id).second) {
                    scores[id] += 1;
                }
            }
        }
        std::vector<std::pair<std::size_t, int>> ranked;
        for (const auto& [id, score] : scores) {
            if (score == static_cast<int>(terms.size())) {
                ranked.emplace_back(id, score);
            }
        }
        std::sort(ranked.begin(), ranked.end(), [this](const auto& a, const auto& b) {
            return books_[a.first].title < books_[b.first].title;
        });
        std::vector<KioskBook> results;
        for (std::size_t i = 0; i < ranked.size() && i < limit; ++i) {
            results.push_back(books_[ranked[i].first]);
        }
        cache_.put(query, results);
        return results;
    }

private:
    std::vector<KioskBook> books_;
    std::unordered_map<std::string, std::vector<std::size_t>> postings_;
    LruCache<std::string, std::vector<KioskBook>> cache_;
};

}  // namespace pagebound
