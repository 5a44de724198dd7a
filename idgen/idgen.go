// Package idgen hands out 64-bit snowflake ids: time-ordered, unique across instances as long as
// each instance runs with its own node number (COUPON_NODE_ID), and safe for concurrent use.
package idgen

import (
	"sync"

	"github.com/bwmarrin/snowflake"
)

var (
	mu   sync.RWMutex
	node = mustNode(1)
)

func mustNode(n int64) *snowflake.Node {
	nd, err := snowflake.NewNode(n)
	if err != nil {
		panic(err)
	}
	return nd
}

// SetNode selects this instance's node number (0…1023); call it once at start-up.
func SetNode(n int64) error {
	nd, err := snowflake.NewNode(n)
	if err != nil {
		return err
	}
	mu.Lock()
	node = nd
	mu.Unlock()
	return nil
}

// Next returns a new id, strictly greater than any id this process returned before.
func Next() int64 {
	mu.RLock()
	defer mu.RUnlock()
	return node.Generate().Int64()
}
