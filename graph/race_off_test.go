//go:build !race

package graph

// raceSlowdown: no race detector, budgets as they are.
const raceSlowdown = 1
