package stats

import (
	"time"

	"coupond/coupon"
	"coupond/coupon/keys"
)

// day is one stats day: its key (YYYY-MM-DD in keys.StatsZone) and its bounds [start, end).
type day struct {
	key        string
	start, end time.Time
}

// dayOf is the stats day t falls in.
func dayOf(t time.Time) day {
	loc := keys.StatsZone()
	l := t.In(loc)
	start := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, loc)
	return day{key: start.Format(time.DateOnly), start: start, end: start.AddDate(0, 0, 1)}
}

// next is the day after d.
func (d day) next() day { return dayOf(d.end) }

// span is the stats days that [from, to) touches: from the day of from to the day of the last
// instant before to. A missing to is the end of today; a missing from is the day of since (or
// MaxDays back from to when since is earlier). More than MaxDays days, or to not after from, is
// INVALID_INPUT.
func (s *Service) span(from, to *time.Time, since time.Time) ([]day, error) {
	end := dayOf(s.now()).end
	if to != nil {
		end = *to
	}
	var first day
	switch {
	case from != nil:
		first = dayOf(*from)
	default:
		first = dayOf(since)
		if limit := dayOf(end.Add(-time.Nanosecond)).start.AddDate(0, 0, 1-s.cfg.MaxDays); first.start.Before(limit) {
			first = dayOf(limit)
		}
	}
	if from != nil && !end.After(*from) || from == nil && !end.After(first.start) {
		return nil, coupon.FieldError("to", "to must be after from")
	}
	var days []day
	for d := first; d.start.Before(end); d = d.next() {
		if len(days) == s.cfg.MaxDays {
			return nil, coupon.Errorf(coupon.CodeInvalidInput, "at most %d days may be asked for at once", s.cfg.MaxDays)
		}
		days = append(days, d)
	}
	return days, nil
}
