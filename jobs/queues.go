package jobs

import "coupond/coupon/keys"

// The queues, by urgency. Workers serve them by weight (Queues), so a long bulk job never delays
// the persistence of claims.
const (
	// QueueCritical carries the claims' persistence (persist and drain tasks).
	QueueCritical = "critical"
	// QueueDefault carries expiry.
	QueueDefault = "default"
	// QueueLow carries bulk work (distribution of uploaded files, archive).
	QueueLow = "low"
)

// weights are the shares of worker time the queues get when all have work.
var weights = map[string]int{QueueCritical: 6, QueueDefault: 3, QueueLow: 1}

// QueueName is the asynq name of one of the queues above: it carries the Redis key namespace
// (keys.Namespace), so deployments or test packages sharing a Redis never take each other's tasks.
func QueueName(q string) string { return keys.Namespace() + q }

// Queues are the worker's queues (asynq.Config.Queues) with their weights.
func Queues() map[string]int {
	out := make(map[string]int, len(weights))
	for q, w := range weights {
		out[QueueName(q)] = w
	}
	return out
}
