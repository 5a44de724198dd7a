package graph

import (
	"encoding/base64"
	"strconv"
	"strings"

	"coupond/coupon"
	"coupond/graph/model"
)

// Page sizes of connections.
const (
	defaultPageSize = 20
	maxPageSize     = 100
)

// pageArgs validates (first, after) and returns the page size and the id after which to start
// (0: from the beginning). Cursors are opaque base64 of "c:<id>".
func pageArgs(first *int, after *string) (int, int64, error) {
	n := defaultPageSize
	if first != nil {
		n = *first
	}
	if n < 1 || n > maxPageSize {
		return 0, 0, &coupon.Error{Code: CodeBadUserInput, Field: []string{"first"}, Message: "first must be between 1 and 100"}
	}
	if after == nil || *after == "" {
		return n, 0, nil
	}
	id, ok := decodeCursor(*after)
	if !ok {
		return 0, 0, &coupon.Error{Code: CodeBadUserInput, Field: []string{"after"}, Message: "after is not a cursor of this connection"}
	}
	return n, id, nil
}

// page builds the edges and page info of one page of nodes, each edge's cursor made from its id.
func page[N, E any](nodes []N, hasNext bool, id func(N) int64, edge func(cursor string, n N) E) ([]E, *model.PageInfo) {
	edges := make([]E, 0, len(nodes))
	info := &model.PageInfo{HasNextPage: hasNext}
	for _, n := range nodes {
		cursor := encodeCursor(id(n))
		edges = append(edges, edge(cursor, n))
		info.EndCursor = &cursor
	}
	return edges, info
}

func encodeCursor(id int64) string {
	return base64.RawURLEncoding.EncodeToString([]byte("c:" + strconv.FormatInt(id, 10)))
}

func decodeCursor(s string) (int64, bool) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return 0, false
	}
	rest, ok := strings.CutPrefix(string(b), "c:")
	if !ok {
		return 0, false
	}
	id, err := strconv.ParseInt(rest, 10, 64)
	return id, err == nil && id > 0
}
