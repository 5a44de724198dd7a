package main

import (
	"errors"
	"fmt"
	"net/http"
)

// Minimum lengths of the secrets COUPON_ENV=prod requires.
const (
	minProdJWTSecret     = 32 // HS256: a key shorter than the hash is guessable offline from one token
	minProdCodeKey       = 32 // the codes' key: the same reasoning, a code being a keyed hash of an id
	minProdSharedSecrets = 16 // the monitoring password and the webhook secret
)

// Listen addresses of COUPON_HTTP_ADDR left empty: dev answers this machine only (a laptop's demo
// tokens and playground are not on the café's network); prod every interface.
const (
	devHTTPAddr  = "127.0.0.1:8080"
	prodHTTPAddr = ":8080"
)

// errDemoInProd refuses `serve --demo` in COUPON_ENV=prod: the demo prints a PLATFORM token.
var errDemoInProd = errors.New("serve --demo is refused in COUPON_ENV=prod: it seeds a demo shop and prints bearer tokens (PLATFORM and SERVICE ones among them); mint tokens with `coupond token`")

// applyEnvDefaults fills the settings whose default depends on COUPON_ENV: the listen address and
// whether the playground is served.
func applyEnvDefaults(c *config) {
	prod := c.Env == "prod"
	if c.HTTPAddr == "" {
		c.HTTPAddr = devHTTPAddr
		if prod {
			c.HTTPAddr = prodHTTPAddr
		}
	}
	c.Playground = c.PlaygroundSetting == "on" || (c.PlaygroundSetting == "" && !prod)
}

// prodRefusals are the settings COUPON_ENV=prod refuses, each as a message naming its variable:
// the development JWT secret or a short one, the development code key or a short one, the default
// or a short monitoring password, and a short webhook secret.
func prodRefusals(c config) []string {
	if c.Env != "prod" {
		return nil
	}
	var errs []string
	if c.JWTSecret == devSecret || len(c.JWTSecret) < minProdJWTSecret {
		errs = append(errs, fmt.Sprintf("COUPON_ENV=prod needs COUPON_JWT_SECRET of at least %d characters", minProdJWTSecret))
	}
	if c.CodeKey == devSecret || len(c.CodeKey) < minProdCodeKey {
		errs = append(errs, fmt.Sprintf("COUPON_ENV=prod needs COUPON_CODE_KEY of at least %d characters", minProdCodeKey))
	}
	if c.MonitorPassword == "admin" || len(c.MonitorPassword) < minProdSharedSecrets {
		errs = append(errs, fmt.Sprintf("COUPON_ENV=prod needs COUPON_MONITOR_PASSWORD of at least %d characters (not the default)", minProdSharedSecrets))
	}
	if c.ReminderWebhookURL != "" && len(c.ReminderWebhookSecret) < minProdSharedSecrets {
		errs = append(errs, fmt.Sprintf("COUPON_ENV=prod needs COUPON_REMINDER_WEBHOOK_SECRET of at least %d characters", minProdSharedSecrets))
	}
	return errs
}

// noFraming forbids other sites to frame next's pages (clickjacking of the playground's and the
// monitoring UI's buttons): X-Frame-Options for old browsers, CSP frame-ancestors for the rest.
// A handler that sets its own Content-Security-Policy keeps it (the playground's names
// frame-ancestors itself).
func noFraming(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("X-Frame-Options", "DENY")
		h.Set("Content-Security-Policy", "frame-ancestors 'none'")
		next.ServeHTTP(w, r)
	})
}
