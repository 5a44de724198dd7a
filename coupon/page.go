package coupon

import "slices"

// Keyset asks for one page of a newest-first listing (ids descending). Forward: up to Size items
// with id < After (0: from the newest). Backward: the Size items just above Before (id > Before; 0:
// up to the oldest), still returned newest first.
type Keyset struct {
	Size     int
	After    int64 // forward only
	Before   int64 // backward only
	Backward bool
}

// Page is one page of a keyset-paginated listing, newest first.
type Page[T any] struct {
	Items   []T
	HasMore bool // more items lie beyond the page in the direction of reading (older forward, newer backward)
	Total   int  // items matching the listing's filter, on every page
}

// NewPage makes the page of a keyset query that asked for k.Size+1 rows, ordered by id descending
// (forward) or ascending (backward): the extra row, when it came, only tells that more follow and
// is dropped, and a backward page is turned newest first. conv turns a row into an item.
func NewPage[R, T any](rows []R, k Keyset, total int, conv func(R) T) Page[T] {
	p := Page[T]{Total: total, HasMore: len(rows) > k.Size}
	if p.HasMore {
		rows = rows[:k.Size]
	}
	p.Items = make([]T, len(rows))
	for i, r := range rows {
		p.Items[i] = conv(r)
	}
	if k.Backward {
		slices.Reverse(p.Items)
	}
	return p
}
