package graph

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// codeSlowBody is the code of a request whose body arrived slower than the minimum rate.
const codeSlowBody = "REQUEST_TIMEOUT"

// MinBodyRate cuts request bodies that arrive slower than rate bytes per second: from its first
// read, a body's n-th byte must have arrived by grace + n/rate (bodyDeadline), else the read
// fails and the request is answered 408 REQUEST_TIMEOUT, whatever the handler answers, and the
// connection is closed. So no body holds a connection longer than grace + size/rate (a 64 MiB
// upload at 1 MB/s passes with any rate below 1 MB/s), while one dripping a byte every few
// seconds is cut after about grace. It works with the connection's read deadline
// (http.ResponseController), cleared once the body is read to its end, so it never cuts a
// handler that is still working. Requests without a body and websocket upgrades go on untouched.
func MinBodyRate(next http.Handler, rate int64, grace time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body == nil || r.Body == http.NoBody || r.Header.Get("Upgrade") != "" {
			next.ServeHTTP(w, r)
			return
		}
		body := &rateBody{r: r.Body, rc: http.NewResponseController(w), rate: rate, grace: grace}
		r.Body = body
		rw := &rateWriter{ResponseWriter: w, r: r, body: body}
		next.ServeHTTP(rw, r)
		if body.tripped.Load() {
			rw.answer() // a handler that wrote nothing after the failed read
		}
	})
}

// bodyDeadline is when the body whose first read was at start must have delivered more than
// read bytes: grace, plus read bytes at rate bytes per second.
func bodyDeadline(start time.Time, read, rate int64, grace time.Duration) time.Time {
	return start.Add(grace + time.Duration(float64(read)/float64(rate)*float64(time.Second)))
}

// rateBody sets the connection's read deadline before each read of the body (bodyDeadline) and
// remembers a read cut by it.
type rateBody struct {
	r       io.ReadCloser
	rc      *http.ResponseController
	rate    int64
	grace   time.Duration
	start   time.Time
	read    int64
	tripped atomic.Bool
}

func (b *rateBody) Read(p []byte) (int, error) {
	if b.start.IsZero() {
		b.start = time.Now()
	}
	_ = b.rc.SetReadDeadline(bodyDeadline(b.start, b.read, b.rate, b.grace))
	n, err := b.r.Read(p)
	b.read += int64(n)
	var ne net.Error
	switch {
	case errors.Is(err, io.EOF):
		_ = b.rc.SetReadDeadline(time.Time{})
	case errors.As(err, &ne) && ne.Timeout():
		b.tripped.Store(true)
	}
	return n, err
}

func (b *rateBody) Close() error { return b.r.Close() }

// rateWriter answers 408 REQUEST_TIMEOUT in place of whatever the handler answers once the body
// was cut for its rate.
type rateWriter struct {
	http.ResponseWriter
	r        *http.Request
	body     *rateBody
	answered bool
}

func (w *rateWriter) WriteHeader(status int) {
	if w.body.tripped.Load() {
		w.answer()
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *rateWriter) Write(b []byte) (int, error) {
	if w.body.tripped.Load() {
		w.answer()
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

func (w *rateWriter) answer() {
	if !w.answered {
		w.answered = true
		w.Header().Del("Content-Length")
		refuseAndClose(w.ResponseWriter, w.r, http.StatusRequestTimeout, codeSlowBody,
			fmt.Sprintf("the request body arrived slower than %d bytes per second", w.body.rate))
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *rateWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
