package distribution

// SetStep makes s call fn after each step of a batch ("deducted", "committed", "settled").
func (s *Service) SetStep(fn func(name string)) { s.step = fn }
