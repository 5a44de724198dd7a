//go:build race

package main

// raceBudgetScale multiplies the web admin's load-time budgets (TestAdminInChromium) under the
// race detector, the test command's: it makes the server answering the page's queries 5–10×
// slower, while the budgets are the product's (a normal build). Doubled, they still fail a page
// that waits on more round trips or on a slow query; the budgets themselves hold in a normal build
// (`go test -run TestAdminInChromium .`).
const raceBudgetScale = 2
