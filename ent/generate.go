package ent

//go:generate go run -mod=mod entgo.io/ent/cmd/ent generate --feature sql/upsert,sql/modifier,sql/execquery,sql/lock,sql/versioned-migration ./schema
