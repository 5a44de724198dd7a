package claim

import (
	"time"

	"coupond/defaults"
)

// Mode says where a claim is persisted. Either way the claim script appends the claim to the
// template's outbox first. "async" (default) answers PENDING at once and a persister writes claims
// to MySQL in batches; "sync" writes each claim in the request (the same batch logic, for one
// claim) and answers ISSUED with the coupon, leaving to the persister what it could not finish.
type Mode string

// Redeem modes.
const (
	ModeAsync Mode = "async"
	ModeSync  Mode = "sync"
)

// Config tunes the claim path.
type Config struct {
	Mode Mode
	// TemplateRate is the per-template claim rate each instance admits (token bucket, in process:
	// a hot-parameter limit that costs no round trip); HotTemplateRates overrides it per template.
	TemplateRate     float64
	HotTemplateRates map[int64]float64
	// UserRate claim attempts per UserWindow per user and template, counted in the claim script;
	// 0 turns the limit off.
	UserRate   int
	UserWindow time.Duration
	// RequestTTL is how long the answer to a requestId is remembered.
	RequestTTL time.Duration
	// MetaTTL is how long template metadata is kept in process between cache reads.
	MetaTTL time.Duration
	// KickEvery is how often accepted claims' templates are handed to the persister (in sync mode,
	// those a request could not finish).
	KickEvery time.Duration
	// WaitReplicas > 0: every claim script is followed, on its node's connection, by WAIT
	// WaitReplicas WaitTimeout, and an accepted claim fewer replicas acknowledged in time is answered
	// coupon.ErrUnconfirmed instead (its retry with the same requestId replays it); 0: no WAIT.
	WaitReplicas int
	WaitTimeout  time.Duration
}

func (c Config) withDefaults() Config {
	if c.Mode == "" {
		c.Mode = ModeAsync
	}
	if c.TemplateRate <= 0 {
		c.TemplateRate = defaults.RedeemTemplateRate
	}
	if c.UserWindow <= 0 {
		c.UserWindow = time.Second
	}
	if c.RequestTTL <= 0 {
		c.RequestTTL = 24 * time.Hour
	}
	if c.MetaTTL <= 0 {
		c.MetaTTL = time.Second
	}
	if c.WaitTimeout <= 0 {
		c.WaitTimeout = defaults.RedisWaitTimeout
	}
	if c.KickEvery <= 0 {
		c.KickEvery = 20 * time.Millisecond
	}
	return c
}
