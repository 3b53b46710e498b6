// Package config loads shipping service settings from a TOML file with
// environment variable overrides, and validates them at startup.
package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/BurntSushi/toml"
)

// Config is the full runtime configuration of the shipping service.
type Config struct {
	ListenAddr      string        `toml:"listen_addr"`
	DatabaseURL     string        `toml:"database_url"`
	ReadTimeout     time.Duration `toml:"read_timeout"`
	WriteTimeout    time.Duration `toml:"write_timeout"`
	RateLimitPerSec float64       `toml:"rate_limit_per_sec"`
	RateLimitBurst  int           `toml:"rate_limit_burst"`
	Carriers        []CarrierConfig `toml:"carriers"`
}

// CarrierConfig describes one courier integration.
type CarrierConfig struct {
	Name     string `toml:"name"`
	BaseURL  string `toml:"base_url"`
	APIKey   string `toml:"api_key"`
	Priority int    `toml:"priority"`
}

func defaults() Config {
	return Config{
		ListenAddr:      ":8090",
		ReadTimeout:     5 * time.Second,
		WriteTimeout:    10 * time.Second,
		RateLimitPerSec: 20,
		RateLimitBurst:  40,
	}
}

// Load reads the TOML file at path (if it exists), then applies overrides
// from SHIPPING_* environment variables, then validates the result.
func Load(path string) (Config, error) {
	cfg := defaults()
	if path != "" {
		if _, err := os.Stat(path); err == nil {
			if _, err := toml.DecodeFile(path, &cfg); err != nil {
				return cfg, fmt.Errorf("parse %s: %w", path, err)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return cfg, err
		}
	}
	if v := os.Getenv("SHIPPING_LISTEN_ADDR"); v != "" {
		cfg.ListenAddr = v
	}
	if v := os.Getenv("DATABASE_URL"); v != "" {
		cfg.DatabaseURL = v
	}
	if v := os.Getenv("SHIPPING_RATE_LIMIT_PER_SEC"); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return cfg, fmt.Errorf("SHIPPING_RATE_LIMIT_PER_SEC: %w", err)
		}
		cfg.RateLimitPerSec = f
	}
	for i := range cfg.Carriers {
		key := "SHIPPING_" + cfg.Carriers[i].Name + "_API_KEY"
		if v := os.Getenv(key); v != "" {
			cfg.Carriers[i].APIKey = v
		}
	}
	return cfg, cfg.Validate()
}

// Validate reports the first problem that would stop the service working.
func (c Config) Validate() error {
	if c.DatabaseURL == "" {
		return errors.New("database_url is required")
	}
	if c.RateLimitPerSec <= 0 || c.RateLimitBurst <= 0 {
		return errors.New("rate limit settings must be positive")
	}
	if len(c.Carriers) == 0 {
		return errors.New("at least one carrier must be configured")
	}
	seen := map[string]bool{}
	for _, carrier := range c.Carriers {
		if seen[carrier.Name] {
			return fmt.Errorf("carrier %q configured twice", carrier.Name)
		}
		seen[carrier.Name] = true
		if carrier.APIKey == "" {
			return fmt.Errorf("carrier %q has no api key", carrier.Name)
		}
	}
	return nil
}
