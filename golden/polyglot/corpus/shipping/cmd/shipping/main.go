// Command shipping runs the Pagebound shipping service: delivery quotes,
// carrier selection and label creation for packed orders.
package main

import (
	"context"
	"database/sql"
	"flag"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/pagebound/shipping/internal/carrier"
	"github.com/pagebound/shipping/internal/config"
	"github.com/pagebound/shipping/internal/server"
)

func main() {
	configPath := flag.String("config", "/etc/pagebound/shipping.toml", "path to TOML config")
	flag.Parse()

	logger := slog.New(slog.NewJSONHandler(os.Stdout, nil))
	cfg, err := config.Load(*configPath)
	if err != nil {
		logger.Error("invalid configuration", "err", err)
		os.Exit(2)
	}

	db, err := sql.Open("pgx", cfg.DatabaseURL)
	if err != nil {
		logger.Error("open database", "err", err)
		os.Exit(1)
	}
	defer db.Close()

	carriers := carrier.NewRegistry(cfg.Carriers)
	limiter := server.NewRateLimiter(cfg.RateLimitPerSec, cfg.RateLimitBurst)
	srv := &http.Server{
		Addr:         cfg.ListenAddr,
		Handler:      limiter.Middleware(server.NewRouter(db, carriers, logger)),
		ReadTimeout:  cfg.ReadTimeout,
		WriteTimeout: cfg.WriteTimeout,
	}

	go func() {
		ticker := time.NewTicker(time.Minute)
		defer ticker.Stop()
		for range ticker.C {
			limiter.Sweep(10 * time.Minute)
		}
	}()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	go func() {
		logger.Info("shipping listening", "addr", cfg.ListenAddr)
		if err := srv.ListenAndServe(); err != nil && err != http.ErrServerClosed {
			logger.Error("server failed", "err", err)
			os.Exit(1)
		}
	}()

	<-ctx.Done()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		logger.Error("graceful shutdown failed", "err", err)
	}
}
