package reconcile

import (
	"fmt"
	"strconv"

	"coupond/lua"
)

// equations returns the broken equations of one read: MySQL's (total = stock + issued), Redis's
// (total = stock + issued + meanwhile + pending; only when the template is cached and its outbox
// was read),
// the two totals, and each user's counter (n = coupons held + the user's pending units; a missing
// counter counts as 0).
func equations(rep *Report, snap *lua.Snapshot, users []int64, held map[int64]int, p pending) []imbalance {
	var out []imbalance
	if d := rep.DBStock + rep.Issued + rep.Reserved - rep.TotalStock; d != 0 {
		out = append(out, imbalance{"mysql", d, fmt.Sprintf("MySQL: stock %d + coupons %d + reserved %d = %d, total stock %d (%s)",
			rep.DBStock, rep.Issued, rep.Reserved, rep.DBStock+rep.Issued+rep.Reserved, rep.TotalStock, units(d))})
	}
	if snap.Cached {
		if d := int(snap.Total) - rep.TotalStock; d != 0 {
			out = append(out, imbalance{"total", d, fmt.Sprintf("Redis total stock %d ≠ MySQL total stock %d", snap.Total, rep.TotalStock)})
		}
		if !snap.Truncated {
			sum := int(snap.Stock) + rep.Issued + rep.Meanwhile + rep.Pending
			if d := sum - int(snap.Total); d != 0 {
				meanwhile := ""
				if rep.Meanwhile != 0 {
					meanwhile = fmt.Sprintf(" + meanwhile %d", rep.Meanwhile)
				}
				out = append(out, imbalance{"redis", d, fmt.Sprintf("Redis: stock %d + coupons %d%s + pending %d = %d, total stock %d (%s)",
					snap.Stock, rep.Issued, meanwhile, rep.Pending, sum, snap.Total, units(d))})
			}
		}
	}
	for i, u := range users {
		n, want := int(snap.Counters[i]), held[u]+p.byUser[u]
		if n < 0 {
			n = 0 // no counter: the claim script counts the user's coupons from 0
		}
		if d := want - n; d != 0 {
			shown := strconv.Itoa(n)
			if snap.Counters[i] < 0 {
				shown = "missing"
			}
			out = append(out, imbalance{"user:" + strconv.FormatInt(u, 10), d, fmt.Sprintf(
				"user %d: Redis claim counter %s ≠ coupons %d + pending %d", u, shown, held[u], p.byUser[u])})
		}
	}
	return out
}

// units reads an imbalance: what the right side has more (or fewer) than the left.
func units(d int) string {
	if d > 0 {
		return fmt.Sprintf("%d more than the total", d)
	}
	return fmt.Sprintf("%d unaccounted for", -d)
}
