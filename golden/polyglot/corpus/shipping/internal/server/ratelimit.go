package server

import (
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// tokenBucket is a classic token bucket: it refills at `rate` tokens per
// second up to `burst`, and each request spends one token.
type tokenBucket struct {
	tokens   float64
	lastSeen time.Time
}

// RateLimiter limits requests per client IP. Buckets for clients that have
// been idle for a while are evicted by a background sweeper.
type RateLimiter struct {
	mu      sync.Mutex
	buckets map[string]*tokenBucket
	rate    float64
	burst   float64
	now     func() time.Time
}

// NewRateLimiter creates a limiter allowing `rate` requests per second with
// bursts of up to `burst` requests.
func NewRateLimiter(rate float64, burst int) *RateLimiter {
	return &RateLimiter{
		buckets: make(map[string]*tokenBucket),
		rate:    rate,
		burst:   float64(burst),
		now:     time.Now,
	}
}

// Allow reports whether a request from key may proceed, and if not, how long
// the caller should wait before retrying.
func (rl *RateLimiter) Allow(key string) (bool, time.Duration) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	now := rl.now()
	b, ok := rl.buckets[key]
	if !ok {
		b = &tokenBucket{tokens: rl.burst, lastSeen: now}
		rl.buckets[key] = b
	}
	elapsed := now.Sub(b.lastSeen).Seconds()
	b.tokens = minFloat(rl.burst, b.tokens+elapsed*rl.rate)
	b.lastSeen = now
	if b.tokens >= 1 {
		b.tokens--
		return true, 0
	}
	wait := time.Duration((1 - b.tokens) / rl.rate * float64(time.Second))
	return false, wait
}

// Sweep drops buckets idle for longer than maxIdle. Call it periodically.
func (rl *RateLimiter) Sweep(maxIdle time.Duration) int {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	removed := 0
	cutoff := rl.now().Add(-maxIdle)
	for key, b := range rl.buckets {
		if b.lastSeen.Before(cutoff) {
			delete(rl.buckets, key)
			removed++
		}
	}
	return removed
}

// Middleware rejects over-limit requests with 429 and a Retry-After header.
func (rl *RateLimiter) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ok, wait := rl.Allow(clientIP(r))
		if !ok {
			w.Header().Set("Retry-After", strconv.Itoa(int(wait.Seconds())+1))
			http.Error(w, "rate limit exceeded", http.StatusTooManyRequests)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func clientIP(r *http.Request) string {
	if fwd := r.Header.Get("X-Forwarded-For"); fwd != "" {
		for i := 0; i < len(fwd); i++ {
			if fwd[i] == ',' {
				return fwd[:i]
			}
		}
		return fwd
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

func minFloat(a, b float64) float64 {
	if a < b {
		return a
	}
	return b
}
