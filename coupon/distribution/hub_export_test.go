package distribution

import "time"

// SetProgressPoll sets how often a followed task is read without an announcement; call it
// before the first Progress.
func (s *Service) SetProgressPoll(d time.Duration) { s.progress.poll = d }
