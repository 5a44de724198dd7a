// Package sharding is coupond's sharding gate: it replays the SQL the real code paths send
// (testdata/*.sql, written by the main module's TestShardingCapture) through Vitess's planner
// (vtexplain) over vschema.json at several shard counts, and reports which shards each transaction
// and each autocommit statement touches (PLANS.md). Its own module, so the main go.mod does not
// carry Vitess.
package sharding

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"vitess.io/vitess/go/stats"
	"vitess.io/vitess/go/vt/servenv"
	"vitess.io/vitess/go/vt/topo/memorytopo"
	"vitess.io/vitess/go/vt/vtenv"
	"vitess.io/vitess/go/vt/vtexplain"
)

// Block is one recorded unit of a path: a transaction (Tx) or one autocommit statement.
type Block struct {
	Tx  bool
	SQL string // the statements, ";"-ended; a transaction's start with BEGIN and end with COMMIT or ROLLBACK
}

// Path is the recording of one code path (testdata/<Name>.sql).
type Path struct {
	Name   string
	Blocks []Block
}

// LoadPaths reads every recorded path of dir (all *.sql but schema.sql), sorted by name.
func LoadPaths(dir string) ([]Path, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.sql"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []Path
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".sql")
		if name == "schema" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		p := Path{Name: name}
		for _, chunk := range strings.Split("\n"+string(b), "\n-- ")[1:] {
			kind, body, _ := strings.Cut(chunk, "\n")
			switch kind {
			case "tx":
				p.Blocks = append(p.Blocks, Block{Tx: true, SQL: strings.TrimSpace(body)})
			case "autocommit":
				p.Blocks = append(p.Blocks, Block{SQL: strings.TrimSpace(body)})
			}
		}
		out = append(out, p)
	}
	return out, nil
}

// Planner is vtexplain over one VSchema and schema with every sharded keyspace split into Shards.
type Planner struct {
	Shards int
	vte    *vtexplain.VTExplain
}

// fastClock shortens vtexplain's logical time slot (10 ms by default, waited out by every
// statement) so 30,000 routing probes take seconds; only the order of slots matters to its plans.
var fastClock sync.Once

// NewPlanner starts vtexplain (in memory: a fake topology, tablets and MySQL) for vschema (JSON)
// and schema (CREATE TABLE statements), each sharded keyspace in shards equal ranges.
func NewPlanner(ctx context.Context, vschema, schema string, shards int) (*Planner, error) {
	fastClock.Do(func() {
		if err := servenv.GetFlagSetFor("vtexplain").Set("batch-interval", "1us"); err != nil {
			panic(err)
		}
	})
	ts := memorytopo.NewServer(ctx, vtexplain.Cell)
	vte, err := vtexplain.Init(ctx, vtenv.NewTestEnv(), ts, vschema, schema, "", &vtexplain.Options{
		NumShards: shards, ReplicationMode: "ROW", Normalize: true, ExecutionMode: vtexplain.ModeMulti,
	}, stats.NewCountersWithSingleLabel("", "srvtopo operations", "type"))
	if err != nil {
		return nil, err
	}
	return &Planner{Shards: shards, vte: vte}, nil
}

// Stop shuts the planner's fake tablets down.
func (p *Planner) Stop() { p.vte.Stop() }

// Touch is what the planner did with a block: the shards ("keyspace/range") it sent queries to.
type Touch struct {
	Shards map[string]bool
	Err    error
}

// Keyspaces returns, per keyspace, how many of its shards t touched.
func (t Touch) Keyspaces() map[string]int {
	out := map[string]int{}
	for s := range t.Shards {
		ks, _, _ := strings.Cut(s, "/")
		out[ks]++
	}
	return out
}

// Plan runs b through the planner. A rolled-back transaction is planned as committed: its
// statements route the same, and vtexplain's fake tablets refuse ROLLBACK. A transaction that the
// planner refuses midway is rolled back at vtgate so the session is clean for the next block.
func (p *Planner) Plan(b Block) Touch {
	t := Touch{Shards: map[string]bool{}}
	sql := b.SQL
	if b.Tx {
		sql = strings.TrimSuffix(sql, "ROLLBACK;") + "COMMIT;"
		sql = strings.Replace(sql, "COMMIT;COMMIT;", "COMMIT;", 1)
	}
	explains, err := p.vte.Run(sql)
	if err != nil {
		t.Err = err
		p.vte.Run("rollback")
		return t
	}
	for _, e := range explains {
		for shard := range e.TabletActions {
			t.Shards[shard] = true
		}
	}
	return t
}

// Route returns the shard ("-80", "80-", …) the planner sends a point read of user_coupon for
// user to.
func (p *Planner) Route(user int64) (string, error) {
	explains, err := p.vte.Run(fmt.Sprintf("select id from user_coupon where user_id = %d", user))
	if err != nil {
		return "", err
	}
	if len(explains) != 1 || len(explains[0].TabletActions) != 1 {
		return "", fmt.Errorf("user %d: the planner did not route to one shard", user)
	}
	for shard := range explains[0].TabletActions {
		_, r, _ := strings.Cut(shard, "/")
		return r, nil
	}
	panic("unreachable")
}

var (
	verb      = regexp.MustCompile(`(?i)^\s*(SELECT|INSERT|UPDATE|DELETE|REPLACE)\b`)
	tableName = regexp.MustCompile("(?i)(?:FROM|INTO|UPDATE)\\s+`?([a-z_]+)`?")
	locking   = regexp.MustCompile(`(?i)FOR UPDATE|LOCK IN SHARE MODE|FOR SHARE`)
)

// Writes reports whether b holds an INSERT, UPDATE, DELETE or REPLACE.
func Writes(b Block) bool {
	for _, stmt := range strings.Split(b.SQL, ";\n") {
		if v := verb.FindStringSubmatch(stmt); v != nil && !strings.EqualFold(v[1], "SELECT") {
			return true
		}
	}
	return false
}

// Shape summarises a block's statements: verb and table of each, repeats collapsed
// ("SELECT coupon_template FOR UPDATE, INSERT user_coupon ×2").
func Shape(b Block) string {
	var parts []string
	counts := map[string]int{}
	for _, stmt := range strings.Split(b.SQL, ";\n") {
		stmt = strings.TrimSpace(stmt)
		v := verb.FindStringSubmatch(stmt)
		if v == nil {
			continue
		}
		s := strings.ToUpper(v[1])
		if m := tableName.FindStringSubmatch(stmt); m != nil {
			s += " " + m[1]
		}
		if locking.MatchString(stmt) {
			s += " (locking)"
		}
		if counts[s] == 0 {
			parts = append(parts, s)
		}
		counts[s]++
	}
	for i, s := range parts {
		if counts[s] > 1 {
			parts[i] = fmt.Sprintf("%s ×%d", s, counts[s])
		}
	}
	return strings.Join(parts, ", ")
}
