//go:build !race

package main

// raceBudgetScale: no race detector, the web admin's budgets as they are.
const raceBudgetScale = 1
