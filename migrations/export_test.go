package migrations

// Files are the embedded migration files, for the tests that walk them down.
var Files = files
