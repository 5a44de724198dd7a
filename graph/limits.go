package graph

import (
	"context"
	"fmt"

	"github.com/99designs/gqlgen/complexity"
	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
)

// operationLimits refuses, with COMPLEXITY_LIMIT_EXCEEDED and before anything runs, operations
// whose complexity (gqlgen's complexity.Calculate over the cost model of complexityRoot) exceeds
// maxComplexity, then those whose selections nest deeper than maxDepth (fragments included).
//
// The depth is a function of the operation alone, and so is the complexity unless a connection's
// first or last is a variable (the only arguments the cost model reads). Both are therefore
// computed once per parsed document and operation name and remembered, with whether the
// complexity must be computed again for each request's variables; the document comes from
// gqlgen's query cache, so a client that sends the same query on every request (the claim path,
// which has no page size) pays for neither walk after the first.
type operationLimits struct {
	es                      graphql.ExecutableSchema
	maxComplexity, maxDepth int
	known                   *lru.Cache[limitsKey, limitsOf]
}

type limitsKey struct {
	doc *ast.QueryDocument
	op  string
}

type limitsOf struct {
	complexity, depth int
	perRequest        bool // the complexity reads variables: computed again for each request
}

func newOperationLimits(maxComplexity, maxDepth int) *operationLimits {
	c, _ := lru.New[limitsKey, limitsOf](1000) // fails only for a size <= 0; the query cache's size
	return &operationLimits{maxComplexity: maxComplexity, maxDepth: maxDepth, known: c}
}

func (*operationLimits) ExtensionName() string { return "OperationLimits" }

func (l *operationLimits) Validate(es graphql.ExecutableSchema) error {
	l.es = es
	return nil
}

func (l *operationLimits) MutateOperationContext(ctx context.Context, oc *graphql.OperationContext) *gqlerror.Error {
	if oc.Operation == nil {
		return nil
	}
	key := limitsKey{doc: oc.Doc, op: oc.OperationName}
	got, ok := l.known.Get(key)
	switch {
	case !ok:
		got = limitsOf{
			complexity: complexity.Calculate(ctx, l.es, oc.Operation, oc.Variables),
			depth:      selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, map[string]bool{}),
			perRequest: variablePage(oc.Operation.SelectionSet, oc.Doc.Fragments, map[string]bool{}),
		}
		l.known.Add(key, got)
	case got.perRequest:
		got.complexity = complexity.Calculate(ctx, l.es, oc.Operation, oc.Variables)
	}
	switch {
	case got.complexity > l.maxComplexity:
		return limitError(fmt.Sprintf("operation has complexity %d, which exceeds the limit of %d", got.complexity, l.maxComplexity))
	case got.depth > l.maxDepth:
		return limitError(fmt.Sprintf("operation depth %d exceeds the limit of %d", got.depth, l.maxDepth))
	}
	return nil
}

func limitError(msg string) *gqlerror.Error {
	err := &gqlerror.Error{Message: msg}
	errcode.Set(err, codeComplexity)
	return err
}

// selectionDepth is the deepest field nesting of set; seen guards against fragment cycles.
func selectionDepth(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen map[string]bool) int {
	deepest := 0
	for _, sel := range set {
		d := 0
		switch s := sel.(type) {
		case *ast.Field:
			d = 1 + selectionDepth(s.SelectionSet, frags, seen)
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, frags, seen)
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil && !seen[s.Name] {
				seen[s.Name] = true
				d = selectionDepth(f.SelectionSet, frags, seen)
				delete(seen, s.Name)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}

// variablePage reports whether a field of set (fragments included) takes its first or last from
// a variable; seen guards against fragment cycles.
func variablePage(set ast.SelectionSet, frags ast.FragmentDefinitionList, seen map[string]bool) bool {
	for _, sel := range set {
		switch s := sel.(type) {
		case *ast.Field:
			for _, a := range s.Arguments {
				if (a.Name == "first" || a.Name == "last") && a.Value != nil && a.Value.Kind == ast.Variable {
					return true
				}
			}
			if variablePage(s.SelectionSet, frags, seen) {
				return true
			}
		case *ast.InlineFragment:
			if variablePage(s.SelectionSet, frags, seen) {
				return true
			}
		case *ast.FragmentSpread:
			if f := frags.ForName(s.Name); f != nil && !seen[s.Name] {
				seen[s.Name] = true
				found := variablePage(f.SelectionSet, frags, seen)
				delete(seen, s.Name)
				if found {
					return true
				}
			}
		}
	}
	return false
}
