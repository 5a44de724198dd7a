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
// whose complexity (gqlgen's complexity.Calculate: 1 per field plus its children) exceeds
// maxComplexity, then those whose selections nest deeper than maxDepth (fragments included).
//
// Both figures are functions of the operation alone: the schema sets no complexity functions
// (NewHandler passes no generated.ComplexityRoot), so arguments and variables never change them.
// They are therefore computed once per parsed document and operation name and remembered; the
// document comes from gqlgen's query cache, so a client that sends the same query on every
// request (the claim path) pays for neither walk after the first.
type operationLimits struct {
	es                      graphql.ExecutableSchema
	maxComplexity, maxDepth int
	known                   *lru.Cache[limitsKey, limitsOf]
}

type limitsKey struct {
	doc *ast.QueryDocument
	op  string
}

type limitsOf struct{ complexity, depth int }

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
	if !ok {
		got = limitsOf{
			complexity: complexity.Calculate(ctx, l.es, oc.Operation, oc.Variables),
			depth:      selectionDepth(oc.Operation.SelectionSet, oc.Doc.Fragments, map[string]bool{}),
		}
		l.known.Add(key, got)
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
