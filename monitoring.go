package main

import "net/http"

// sameOriginWrites refuses (403) a request with an unsafe method (POST, PUT, PATCH, DELETE…)
// that a browser sent from another origin, judged by Sec-Fetch-Site or by Origin against Host
// (net/http's CrossOriginProtection). Browsers replay cached basic-auth credentials on a
// third-party page's form POST, so without this check such a page could pause queues or archive
// tasks in /monitoring. Same-origin requests (asynqmon's own UI) and non-browser clients, which
// send neither header, pass.
func sameOriginWrites(next http.Handler) http.Handler {
	return http.NewCrossOriginProtection().Handler(next)
}
