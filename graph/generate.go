// Package graph holds the GraphQL resolvers: each decodes its input, calls the domain (package
// coupon) and maps the result; generated code lives in graph/generated and graph/model.
package graph

//go:generate sh -c "cd .. && go tool gqlgen generate --config gqlgen.yml"
