// Package carrier wraps the courier APIs (Royal Mail, DPD, Evri) behind a
// single interface so the handlers can compare quotes and buy labels.
package carrier

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"time"

	"github.com/pagebound/shipping/internal/config"
)

// Parcel is what we ask carriers to move.
type Parcel struct {
	WeightGrams int    `json:"weight_grams"`
	LengthMM    int    `json:"length_mm"`
	WidthMM     int    `json:"width_mm"`
	HeightMM    int    `json:"height_mm"`
	Postcode    string `json:"postcode"`
	Country     string `json:"country"`
}

// Quote is one carrier's price for a parcel.
type Quote struct {
	Carrier    string `json:"carrier"`
	Service    string `json:"service"`
	PriceMinor int    `json:"price_minor"`
	ETADays    int    `json:"eta_days"`
}

// Label is a purchased shipping label.
type Label struct {
	Carrier        string `json:"carrier"`
	TrackingNumber string `json:"tracking_number"`
	TrackingURL    string `json:"tracking_url"`
	PDFBase64      string `json:"pdf_base64"`
}

// ErrNoQuote means no carrier would take the parcel.
var ErrNoQuote = errors.New("no carrier can deliver this parcel")

// Client talks to one carrier's HTTP API.
type Client struct {
	cfg  config.CarrierConfig
	http *http.Client
}

func (c *Client) post(ctx context.Context, path string, body, out any) error {
	payload, err := json.Marshal(body)
	if err != nil {
		return err
	}
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+path, bytes.NewReader(payload))
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := c.http.Do(req)
		if err == nil && resp.StatusCode < 500 {
			defer resp.Body.Close()
			if resp.StatusCode >= 400 {
				return fmt.Errorf("%s %s: status %d", c.cfg.Name, path, resp.StatusCode)
			}
			return json.NewDecoder(resp.Body).Decode(out)
		}
		if err == nil {
			resp.Body.Close()
			lastErr = fmt.Errorf("%s %s: status %d", c.cfg.Name, path, resp.StatusCode)
		} else {
			lastErr = err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(250<<attempt) * time.Millisecond):
		}
	}
	return lastErr
}

// Registry holds every configured carrier client.
type Registry struct {
	clients []*Client
}

// NewRegistry builds clients for each carrier in priority order.
func NewRegistry(cfgs []config.CarrierConfig) *Registry {
	sorted := append([]config.CarrierConfig(nil), cfgs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Priority < sorted[j].Priority })
	r := &Registry{}
	for _, cfg := range sorted {
		r.clients = append(r.clients, &Client{cfg: cfg, http: &http.Client{Timeout: 8 * time.Second}})
	}
	return r
}

// Quotes asks every carrier for a price concurrently and returns the ones that
// answered, cheapest first. Carriers that fail or time out are skipped.
func (r *Registry) Quotes(ctx context.Context, p Parcel) ([]Quote, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	results := make(chan []Quote, len(r.clients))
	for _, c := range r.clients {
		go func(c *Client) {
			var qs []Quote
			if err := c.post(ctx, "/quotes", p, &qs); err != nil {
				results <- nil
				return
			}
			results <- qs
		}(c)
	}
	var all []Quote
	for range r.clients {
		all = append(all, <-results...)
	}
	if len(all) == 0 {
		return nil, ErrNoQuote
	}
	sort.Slice(all, func(i, j int) bool {
		if all[i].PriceMinor != all[j].PriceMinor {
			return all[i].PriceMinor < all[j].PriceMinor
		}
		return all[i].ETADays < all[j].ETADays
	})
	return all, nil
}

// BuyLabel purchases a label from the named carrier.
func (r *Registry) BuyLabel(ctx context.Context, carrierName, service string, p Parcel) (Label, error) {
	for _, c := range r.clients {
		if c.cfg.Name == carrierName {
			var label Label
			err := c.post(ctx, "/labels", map[string]any{"service": service, "parcel": p}, &label)
			return label, err
		}
	}
	return Label{}, fmt.Errorf("unknown carrier %q", carrierName)
}
