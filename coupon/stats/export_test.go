package stats

import "time"

// SetNow replaces the service's clock.
func (s *Service) SetNow(f func() time.Time) { s.now = f }
