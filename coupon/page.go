package coupon

// Page is one page of a keyset-paginated listing, newest first.
type Page[T any] struct {
	Items   []T
	HasNext bool // more items follow the last one
	Total   int  // items matching the listing's filter, on every page
}

// NewPage makes the page of a keyset query that asked for first+1 rows: the extra row, when it
// came, only tells that a next page exists and is dropped. conv turns a row into an item.
func NewPage[R, T any](rows []R, first, total int, conv func(R) T) Page[T] {
	p := Page[T]{Total: total, HasNext: len(rows) > first}
	if p.HasNext {
		rows = rows[:first]
	}
	p.Items = make([]T, len(rows))
	for i, r := range rows {
		p.Items[i] = conv(r)
	}
	return p
}
