//go:build race

package graph

// raceSlowdown is how much slower the race detector makes CPU-bound code (5–10×); budgets of
// server CPU in tests are scaled by it.
const raceSlowdown = 10
