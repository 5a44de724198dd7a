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

// pageRequest is the page of a newest-first connection that (first, after, last, before) asks
// for, per the Relay cursor connections spec: forward, up to size edges after afterID (0: from
// the newest); backward, the size edges just before beforeID (0: up to the oldest).
type pageRequest struct {
	size     int
	backward bool
	afterID  int64 // forward only
	beforeID int64 // backward only
}

// pageArgs validates the connection arguments. first/after page forward, last/before backward;
// mixing the two directions is BAD_USER_INPUT, as are sizes outside 1…100 and foreign cursors.
// With neither first nor last, the page is the first 20 (or, with before only, the last 20).
func pageArgs(first *int, after *string, last *int, before *string) (pageRequest, error) {
	bad := func(field, msg string) (pageRequest, error) {
		return pageRequest{}, &coupon.Error{Code: CodeBadUserInput, Field: []string{field}, Message: msg}
	}
	hasAfter, hasBefore := after != nil && *after != "", before != nil && *before != ""
	switch {
	case first != nil && last != nil:
		return bad("last", "pass first (forward) or last (backward), not both")
	case hasBefore && first != nil:
		return bad("before", "before pages backward: use it with last, not first")
	case hasAfter && (last != nil || hasBefore):
		return bad("after", "after pages forward: use it with first, not last or before")
	}
	req := pageRequest{size: defaultPageSize, backward: last != nil || hasBefore}
	sizeArg, sizeName, cursor, cursorName := first, "first", after, "after"
	if req.backward {
		sizeArg, sizeName, cursor, cursorName = last, "last", before, "before"
	}
	if sizeArg != nil {
		req.size = *sizeArg
	}
	if req.size < 1 || req.size > maxPageSize {
		return bad(sizeName, sizeName+" must be between 1 and 100")
	}
	if cursor == nil || *cursor == "" {
		return req, nil
	}
	id, ok := decodeCursor(*cursor)
	if !ok {
		return bad(cursorName, cursorName+" is not a cursor of this connection")
	}
	if req.backward {
		req.beforeID = id
	} else {
		req.afterID = id
	}
	return req, nil
}

// keyset is the domain's page request.
func (p pageRequest) keyset() coupon.Keyset {
	return coupon.Keyset{Size: p.size, After: p.afterID, Before: p.beforeID, Backward: p.backward}
}

// page builds the edges and page info of one page of nodes (newest first, as the connection
// lists them), each edge's cursor made from its id; more tells whether edges lie beyond the page
// in the request's direction (after it forward, before it backward).
func page[N, E any](nodes []N, more bool, req pageRequest, id func(N) int64, edge func(cursor string, n N) E) ([]E, *model.PageInfo) {
	edges := make([]E, 0, len(nodes))
	info := &model.PageInfo{HasNextPage: more && !req.backward, HasPreviousPage: more && req.backward}
	for i, n := range nodes {
		cursor := encodeCursor(id(n))
		edges = append(edges, edge(cursor, n))
		if i == 0 {
			info.StartCursor = &cursor
		}
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
