// Command mariadb-settings is the write load of bench/mariadb-settings.sh: into a fresh database on
// the server named by -dsn (migrated: user_coupon with every index coupond has), it inserts
// coupons the two ways coupond writes them and reports each rate:
//
//   - bulk: -writers goroutines, each committing multi-row INSERTs of -batch coupons per
//     transaction (the persister's and distribution's batches), until -rows are in;
//   - single: -clients goroutines committing one coupon per transaction (sync claims, checkout
//     transitions: commit latency, i.e. the log flushes) for -duration.
//
// User ids are spread over the whole key space as real claims are, so the secondary indexes take
// random inserts (the buffer pool's work once they outgrow it). It prints one line,
// "bulk_rows_per_s=N single_commits_per_s=M", for the script to compare.
//
//	go run ./bench/mariadb-settings -dsn 'root@unix(/tmp/x/sock)/bench' -rows 1000000
package main

import (
	"database/sql"
	"flag"
	"fmt"
	"log"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	_ "github.com/go-sql-driver/mysql"

	"coupond/migrations"
)

func main() {
	dsn := flag.String("dsn", "", "go-sql-driver DSN of the database to create and load (required)")
	rows := flag.Int("rows", 1000000, "coupons of the bulk phase")
	batch := flag.Int("batch", 500, "coupons per bulk transaction")
	writers := flag.Int("writers", 4, "concurrent bulk writers")
	clients := flag.Int("clients", 64, "concurrent single-row committers")
	duration := flag.Duration("duration", 20*time.Second, "length of the single-row phase")
	flag.Parse()
	if *dsn == "" {
		log.Fatal("-dsn is required")
	}
	if err := migrations.EnsureDatabase(*dsn); err != nil {
		log.Fatal(err)
	}
	if err := migrations.Apply(*dsn); err != nil {
		log.Fatal(err)
	}
	db, err := sql.Open("mysql", *dsn)
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(*writers + *clients)
	db.SetMaxIdleConns(*writers + *clients)

	var next atomic.Int64 // coupon number: the id, the user (spread) and the redemption id follow from it
	bulk := measure(*writers, func(stop func() bool) int {
		n := 0
		for !stop() {
			first := next.Add(int64(*batch)) - int64(*batch)
			if first >= int64(*rows) {
				break
			}
			k := min(int64(*batch), int64(*rows)-first)
			insert(db, first, int(k))
			n += int(k)
		}
		return n
	}, 0)
	single := measure(*clients, func(stop func() bool) int {
		n := 0
		for !stop() {
			insert(db, next.Add(1)-1, 1)
			n++
		}
		return n
	}, *duration)
	fmt.Printf("bulk_rows_per_s=%.0f single_commits_per_s=%.0f\n", bulk, single)
}

// measure runs work in n goroutines (for d, or until each returns when d is 0) and returns the
// units done per second.
func measure(n int, work func(stop func() bool) int, d time.Duration) float64 {
	start := time.Now()
	stop := func() bool { return d > 0 && time.Since(start) >= d }
	var total atomic.Int64
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { total.Add(int64(work(stop))) })
	}
	wg.Wait()
	return float64(total.Load()) / time.Since(start).Seconds()
}

// insert commits coupons first … first+k-1 in one transaction (one multi-row INSERT).
func insert(db *sql.DB, first int64, k int) {
	var q strings.Builder
	q.WriteString("INSERT INTO user_coupon (id, created_at, updated_at, user_id, template_id, redemption_id, receive_count, source, status, valid_start_time, valid_end_time) VALUES ")
	args := make([]any, 0, 8*k)
	now := time.Now().UTC()
	for i := range int64(k) {
		if i > 0 {
			q.WriteByte(',')
		}
		q.WriteString("(?, ?, ?, ?, ?, ?, 1, 'CLAIM', 'UNUSED', ?, ?)")
		c := first + i
		// An odd multiplier scatters the numbers over the key space: distinct users, in no order.
		user := int64(uint64(c)*0x9E3779B97F4A7C15>>2) + 1
		args = append(args, c+1, now, now, user, c%100+1, fmt.Sprint("b-", c), now, now.Add(720*time.Hour))
	}
	tx, err := db.Begin()
	if err != nil {
		log.Fatal(err)
	}
	if _, err := tx.Exec(q.String(), args...); err != nil {
		log.Fatal(err)
	}
	if err := tx.Commit(); err != nil {
		log.Fatal(err)
	}
}
