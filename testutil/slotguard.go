package testutil

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"coupond/coupon/keys"

	"github.com/redis/go-redis/v9"
)

// SlotGuard is a go-redis hook that refuses, before sending it, any command whose keys hash to more
// than one Redis Cluster slot (CROSSSLOT on a cluster), and any MULTI/EXEC transaction whose
// commands do; it records each refusal. Its keys are those the server's COMMAND table declares,
// and for the commands with movable keys coupond can send, those their arguments declare: EVAL,
// EVALSHA, FCALL (and their _RO forms) by numkeys, XREAD and XREADGROUP after STREAMS, Z*STORE,
// ZUNION, ZINTER, ZDIFF, SINTERCARD, ZINTERCARD, LMPOP, ZMPOP, BLMPOP and BZMPOP by numkeys.
type SlotGuard struct {
	table map[string]*redis.CommandInfo

	mu         sync.Mutex
	violations []string
}

// NewSlotGuard reads rdb's COMMAND table and returns a guard to add to clients (AddHook).
func NewSlotGuard(ctx context.Context, rdb redis.UniversalClient) (*SlotGuard, error) {
	table, err := rdb.Command(ctx).Result()
	if err != nil {
		return nil, fmt.Errorf("slot guard: COMMAND: %w", err)
	}
	return &SlotGuard{table: table}, nil
}

// Violations returns the commands refused so far, described.
func (g *SlotGuard) Violations() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.violations...)
}

// DialHook leaves connections alone.
func (g *SlotGuard) DialHook(next redis.DialHook) redis.DialHook { return next }

// ProcessHook refuses a command whose keys span slots.
func (g *SlotGuard) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if err := g.check([]redis.Cmder{cmd}); err != nil {
			cmd.SetErr(err)
			return err
		}
		return next(ctx, cmd)
	}
}

// ProcessPipelineHook refuses a pipeline with a command whose keys span slots, or a transaction
// (MULTI … EXEC) whose commands' keys do.
func (g *SlotGuard) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		var err error
		if len(cmds) > 0 && cmds[0].Name() == "multi" {
			err = g.check(cmds)
		} else {
			for _, c := range cmds {
				if err = g.check([]redis.Cmder{c}); err != nil {
					break
				}
			}
		}
		if err != nil {
			for _, c := range cmds {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cmds)
	}
}

// check records and returns an error when the keys of cmds (one command, or one transaction) hash
// to more than one slot.
func (g *SlotGuard) check(cmds []redis.Cmder) error {
	first, firstKey := -1, ""
	for _, c := range cmds {
		for _, k := range g.keys(c.Args()) {
			s := Slot(k)
			if first == -1 {
				first, firstKey = s, k
				continue
			}
			if s != first {
				what := fmt.Sprint(c.Args())
				if len(cmds) > 1 {
					what = "a MULTI/EXEC transaction, at " + what
				}
				if len(what) > 300 {
					what = what[:300] + "…"
				}
				v := fmt.Sprintf("slot guard: CROSSSLOT: %s: key %q (slot %d) and key %q (slot %d)", what, firstKey, first, k, s)
				g.mu.Lock()
				g.violations = append(g.violations, v)
				g.mu.Unlock()
				return fmt.Errorf("%s", v)
			}
		}
	}
	return nil
}

// keys returns the key arguments of one command.
func (g *SlotGuard) keys(args []any) []string {
	if len(args) == 0 {
		return nil
	}
	str := func(i int) string {
		if i < 0 || i >= len(args) {
			return ""
		}
		switch v := args[i].(type) {
		case string:
			return v
		case []byte:
			return string(v)
		default:
			return fmt.Sprint(v)
		}
	}
	// numkeys at position at: the keys follow it.
	counted := func(at int) []string {
		n, err := strconv.Atoi(str(at))
		if err != nil {
			return nil
		}
		var ks []string
		for i := at + 1; i <= at+n && i < len(args); i++ {
			ks = append(ks, str(i))
		}
		return ks
	}
	name := strings.ToLower(str(0))
	switch name {
	case "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro":
		return counted(2)
	case "zunionstore", "zinterstore", "zdiffstore":
		return append([]string{str(1)}, counted(2)...)
	case "zunion", "zinter", "zdiff", "sintercard", "zintercard", "lmpop", "zmpop":
		return counted(1)
	case "blmpop", "bzmpop":
		return counted(2)
	case "xread", "xreadgroup":
		for i := 1; i < len(args); i++ {
			if strings.EqualFold(str(i), "streams") {
				rest := args[i+1:]
				var ks []string
				for j := 0; j < len(rest)/2; j++ {
					ks = append(ks, str(i+1+j))
				}
				return ks
			}
		}
		return nil
	}
	info := g.table[name]
	if info == nil || info.FirstKeyPos <= 0 {
		return nil
	}
	last := int(info.LastKeyPos)
	if last < 0 {
		last += len(args)
	}
	step := max(int(info.StepCount), 1)
	var ks []string
	for i := int(info.FirstKeyPos); i <= last && i < len(args); i += step {
		ks = append(ks, str(i))
	}
	return ks
}

// Slot is the Redis Cluster hash slot of key (keys.Slot).
func Slot(key string) int { return keys.Slot(key) }
