package migrations

// Files are the embedded migration files, for tests that step through versions.
var Files = files
