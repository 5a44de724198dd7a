package ent

//go:generate go tool ent generate --feature sql/upsert,sql/modifier,sql/execquery,sql/lock,sql/versioned-migration ./schema
