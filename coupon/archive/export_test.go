package archive

import (
	"context"
	"time"
)

// SetClock makes a read the time from now.
func SetClock(a *Archiver, now func() time.Time) { a.now = now }

// RunUnleased is a's run without its lease, as two archivers racing would run.
func RunUnleased(ctx context.Context, a *Archiver) (Result, error) { return a.run(ctx) }
