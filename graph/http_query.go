package graph

import (
	"context"
	"crypto/sha256"
	"strconv"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/errcode"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	lru "github.com/hashicorp/golang-lru/v2"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"
)

func init() {
	// Request-level refusals answer 400 with application/graphql-response+json (and 200 with
	// application/json, see overHTTP), like parse and validation errors.
	errcode.RegisterErrorType(string(CodeBadUserInput), errcode.KindProtocol)
	errcode.RegisterErrorType(codeComplexity, errcode.KindProtocol)
}

// queryGuard bounds what a document may cost before gqlgen validates it (validation runs before
// any limit or @hasRole, and its overlapping-fields rule is quadratic in the fields that share a
// response name). It parses the query itself with a token limit, then refuses a document in
// which more than maxRepeats fields share one response name in a selection set (fragments and
// same-named fields merged, as the validator sees them) or that expands to more than maxTokens
// fields through fragments. It also refuses operations other than queries over GET. Documents
// that passed are remembered by hash, so the hot path parses once.
type queryGuard struct {
	maxTokens, maxRepeats int
	passed                *lru.Cache[[32]byte, struct{}]
}

func newQueryGuard(maxTokens, maxRepeats int) queryGuard {
	c, _ := lru.New[[32]byte, struct{}](1000) // fails only for a size <= 0
	return queryGuard{maxTokens: maxTokens, maxRepeats: maxRepeats, passed: c}
}

func (queryGuard) ExtensionName() string                   { return "QueryGuard" }
func (queryGuard) Validate(graphql.ExecutableSchema) error { return nil }

// MutateOperationParameters checks p.Query; an empty one (a persisted-query lookup) was checked
// when it was registered.
func (g queryGuard) MutateOperationParameters(ctx context.Context, p *graphql.RawParams) *gqlerror.Error {
	if p.Query == "" {
		return nil
	}
	key := sha256.Sum256([]byte(p.Query))
	isGet := isGetRequest(ctx)
	if g.passed.Contains(key) && !isGet {
		return nil
	}
	doc, err := parser.ParseQueryWithTokenLimit(&ast.Source{Input: p.Query}, g.maxTokens)
	if err != nil {
		gqlErr, ok := err.(*gqlerror.Error)
		if !ok {
			gqlErr = gqlerror.Wrap(err)
		}
		errcode.Set(gqlErr, errcode.ParseFailed)
		return gqlErr
	}
	if msg := g.checkShape(doc); msg != "" {
		return codedError(codeComplexity, msg)
	}
	if isGet {
		if op := doc.Operations.ForName(p.OperationName); op != nil && op.Operation != ast.Query {
			return codedError(string(CodeBadUserInput), "GET requests run queries only; send a "+string(op.Operation)+" with POST")
		}
	}
	g.passed.Add(key, struct{}{})
	return nil
}

// checkShape returns why doc is refused, or "".
func (g queryGuard) checkShape(doc *ast.QueryDocument) string {
	w := shapeWalker{doc: doc, maxRepeats: g.maxRepeats, maxFields: g.maxTokens, visiting: map[string]bool{}}
	for _, op := range doc.Operations {
		w.walk([]ast.SelectionSet{op.SelectionSet})
	}
	for _, f := range doc.Fragments {
		w.walk([]ast.SelectionSet{f.SelectionSet})
	}
	return w.refusal
}

// shapeWalker walks merged selection sets, counting fields per response name and in all.
type shapeWalker struct {
	doc                   *ast.QueryDocument
	maxRepeats, maxFields int
	fields                int
	visiting              map[string]bool
	refusal               string
}

// walk treats sets as one merged selection set, then walks the merged sub-selections of each
// response name.
func (w *shapeWalker) walk(sets []ast.SelectionSet) {
	count := map[string]int{}
	var names []string
	children := map[string][]ast.SelectionSet{}
	var add func(ast.SelectionSet)
	add = func(set ast.SelectionSet) {
		for _, sel := range set {
			if w.refusal != "" {
				return
			}
			switch s := sel.(type) {
			case *ast.Field:
				if w.fields++; w.fields > w.maxFields {
					w.refusal = "the document expands to more than " + strconv.Itoa(w.maxFields) + " fields"
					return
				}
				name := s.Alias
				if name == "" {
					name = s.Name
				}
				if count[name]++; count[name] > w.maxRepeats {
					w.refusal = "more than " + strconv.Itoa(w.maxRepeats) + " fields named " + truncate(name, 40) + " in one selection set"
					return
				}
				if count[name] == 1 {
					names = append(names, name)
				}
				if len(s.SelectionSet) > 0 {
					children[name] = append(children[name], s.SelectionSet)
				}
			case *ast.InlineFragment:
				add(s.SelectionSet)
			case *ast.FragmentSpread:
				if f := w.doc.Fragments.ForName(s.Name); f != nil && !w.visiting[s.Name] {
					w.visiting[s.Name] = true
					add(f.SelectionSet)
					delete(w.visiting, s.Name)
				}
			}
		}
	}
	for _, set := range sets {
		add(set)
	}
	for _, name := range names {
		if w.refusal != "" {
			return
		}
		if len(children[name]) > 0 {
			w.walk(children[name])
		}
	}
}

// persistedQueries is gqlgen's automatic persisted queries with every refusal coded: an unknown
// hash stays PERSISTED_QUERY_NOT_FOUND (clients then send the query), a hash that does not match
// its query or a malformed extension is BAD_USER_INPUT.
type persistedQueries struct {
	extension.AutomaticPersistedQuery
}

func (p persistedQueries) MutateOperationParameters(ctx context.Context, raw *graphql.RawParams) *gqlerror.Error {
	err := p.AutomaticPersistedQuery.MutateOperationParameters(ctx, raw)
	if err != nil && err.Extensions["code"] == nil {
		errcode.Set(err, string(CodeBadUserInput))
	}
	return err
}

func codedError(code, msg string) *gqlerror.Error {
	return &gqlerror.Error{Message: msg, Extensions: map[string]any{"code": code}}
}
