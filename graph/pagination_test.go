package graph

import (
	"testing"

	"coupond/graph/model"
)

func TestPageArgs(t *testing.T) {
	n := func(v int) *int { return &v }
	s := func(v string) *string { return &v }
	c := encodeCursor(42)
	for name, tc := range map[string]struct {
		first, last   *int
		after, before *string
		want          pageRequest
	}{
		"defaults":          {want: pageRequest{size: 20}},
		"first after":       {first: n(5), after: s(c), want: pageRequest{size: 5, afterID: 42}},
		"empty after":       {first: n(5), after: s(""), want: pageRequest{size: 5}},
		"last before":       {last: n(3), before: s(c), want: pageRequest{size: 3, backward: true, beforeID: 42}},
		"last alone":        {last: n(3), want: pageRequest{size: 3, backward: true}},
		"before alone":      {before: s(c), want: pageRequest{size: 20, backward: true, beforeID: 42}},
		"first, empty last": {first: n(1), before: s(""), want: pageRequest{size: 1}},
	} {
		got, err := pageArgs(tc.first, tc.after, tc.last, tc.before)
		if err != nil || got != tc.want {
			t.Errorf("%s: %+v, %v; want %+v", name, got, err, tc.want)
		}
	}
	if _, err := pageArgs(n(0), nil, nil, nil); err == nil {
		t.Error("first: 0 accepted")
	}
	if _, err := pageArgs(nil, s(c), nil, s(c)); err == nil {
		t.Error("after with before accepted")
	}
}

// A backward page reports edges before it in hasPreviousPage; a forward one in hasNextPage.
func TestPageInfoFollowsTheDirection(t *testing.T) {
	ids := []int64{30, 20}
	build := func(more bool, req pageRequest) *model.PageInfo {
		_, info := page(ids, more, req, func(id int64) int64 { return id }, func(c string, _ int64) string { return c })
		return info
	}
	fwd := build(true, pageRequest{size: 2})
	back := build(true, pageRequest{size: 2, backward: true})
	if !fwd.HasNextPage || fwd.HasPreviousPage || back.HasNextPage || !back.HasPreviousPage {
		t.Fatalf("forward %+v, backward %+v", fwd, back)
	}
	if *back.StartCursor != encodeCursor(30) || *back.EndCursor != encodeCursor(20) {
		t.Fatalf("cursors: %s %s", *back.StartCursor, *back.EndCursor)
	}
}
