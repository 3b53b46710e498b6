// lru_cache.hpp - thread-safe LRU cache with per-entry time-to-live.
//
// Used by the in-store kiosk search to keep recently viewed book records and
// cover thumbnails in memory instead of asking the catalogue service again.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <utility>

namespace pagebound {

template <typename Key, typename Value, typename Clock = std::chrono::steady_clock>
class LruCache {
public:
    using Duration = typename Clock::duration;

    struct Stats {
        std::size_t hits = 0;
        std::size_t misses = 0;
        std::size_t evictions = 0;
        std::size_t expirations = 0;
    };

    LruCache(std::size_t capacity, Duration ttl) : capacity_(capacity), ttl_(ttl) {}

    LruCache(const LruCache&) = delete;
    LruCache& operator=(const LruCache&) = delete;

    // Returns the cached value and marks it most recently used. Entries older
    // than the TTL are treated as misses and removed on the spot.
    std::optional<Value> get(const Key& key) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = index_.find(key);
        if (it == index_.end()) {
            ++stats_.misses;
            return std::nullopt;
        }
        auto node = it->second;
        if (Clock::now() - node->inserted_at > ttl_) {
            order_.erase(node);
            index_.erase(it);
            ++stats_.expirations;
            ++stats_.misses;
            return std::nullopt;
        }
        order_.splice(order_.begin(), order_, node);
        ++stats_.hits;
        return node->value;
    }

    // Inserts or replaces a value, evicting the least recently used entry when
    // the cache is full.
    void put(const Key& key, Value value) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = index_.find(key);
        if (it != index_.end()) {
            it->second->value = std::move(value);
            it->second->inserted_at = Clock::now();
            order_.splice(order_.begin(), order_, it->second);
            return;
        }
        if (index_.size() >= capacity_ && !order_.empty()) {
            index_.erase(order_.back().key);
            order_.pop_back();
            ++stats_.evictions;
        }
        order_.push_front(Entry{key, std::move(value), Clock::now()});
        index_.emplace(key, order_.begin());
    }

    bool erase(const Key& key) {
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = index_.find(key);
        if (it == index_.end()) {
            return false;
        }
        order_.erase(it->second);
        index_.erase(it);
        return true;
    }

    std::size_t size() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return index_.size();
    }

    Stats stats() const {
        std::lock_guard<std::mutex> lock(mutex_);
        return stats_;
    }

private:
    struct Entry {
        Key key;
        Value value;
        typename Clock::time_point inserted_at;
    };

    std::size_t capacity_;
    Duration ttl_;
    mutable std::mutex mutex_;
    std::list<Entry> order_;
    std::unordered_map<Key, typename std::list<Entry>::iterator> index_;
    Stats stats_;
};

}  // namespace pagebound
