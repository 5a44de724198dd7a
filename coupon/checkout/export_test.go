package checkout

import "time"

// SetClock makes s read the time from now (tests of expiries).
func SetClock(s *Service, now func() time.Time) { s.now = now }
