package archive

import "time"

// SetClock makes a read the time from now.
func SetClock(a *Archiver, now func() time.Time) { a.now = now }
