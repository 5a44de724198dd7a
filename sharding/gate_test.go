package sharding

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"testing"

	"vitess.io/vitess/go/vt/key"

	"coupond/migrations"
	"coupond/store"
)

// shardCounts are the splits of each sharded keyspace the gate plans under.
var shardCounts = []int{2, 4, 8}

func read(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// vschemaTables is keyspace → its tables in vschema.json, and whether each keyspace is sharded.
func vschemaTables(t *testing.T) (map[string][]string, map[string]bool) {
	t.Helper()
	var vs map[string]struct {
		Sharded bool                       `json:"sharded"`
		Tables  map[string]json.RawMessage `json:"tables"`
	}
	if err := json.Unmarshal([]byte(read(t, "vschema.json")), &vs); err != nil {
		t.Fatal(err)
	}
	tables, sharded := map[string][]string{}, map[string]bool{}
	for ks, k := range vs {
		sharded[ks] = k.Sharded
		for name := range k.Tables {
			tables[ks] = append(tables[ks], name)
		}
		sort.Strings(tables[ks])
	}
	return tables, sharded
}

// The VSchema routes exactly the tables of the migrations, each in the keyspace
// migrations.Keyspaces (which coupond migrate --print-ddl --keyspace uses) puts it in, and both
// keyspaces are sharded.
func TestVSchemaIsTheKeyspacesOfTheMigrations(t *testing.T) {
	tables, sharded := vschemaTables(t)
	if len(tables) != len(migrations.Keyspaces) {
		t.Fatalf("vschema.json keyspaces %v, migrations.Keyspaces %v", tables, migrations.Keyspaces)
	}
	for ks, want := range migrations.Keyspaces {
		if !slices.Equal(tables[ks], want) || !sharded[ks] {
			t.Errorf("keyspace %s: vschema.json has %v (sharded %v), migrations.Keyspaces %v", ks, tables[ks], sharded[ks], want)
		}
	}
}

// result is one block of one path planned under one shard count.
type result struct {
	path  string
	index int // the block's number in its path, from 1
	block Block
	touch map[int]Touch // shard count → what it touched
}

// TestTransactionsTouchOneShard replays every recorded path at 2, 4 and 8 shards per keyspace,
// writes PLANS.md, and fails for each transaction that touches more than one shard (of either
// keyspace: Vitess commits such a transaction shard by shard, best effort), for each autocommit
// write that does (the same, in one statement) and for each statement the planner refuses.
// Autocommit reads may scatter.
func TestTransactionsTouchOneShard(t *testing.T) {
	paths, err := LoadPaths("testdata")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no recorded paths in testdata: run the main module's TestShardingCapture with -update-sharding")
	}
	vschema, schema := read(t, "vschema.json"), read(t, "testdata/schema.sql")
	var results []*result
	for _, p := range paths {
		for i, b := range p.Blocks {
			results = append(results, &result{path: p.Name, index: i + 1, block: b, touch: map[int]Touch{}})
		}
	}
	ctx := context.Background()
	for _, n := range shardCounts {
		pl, err := NewPlanner(ctx, vschema, schema, n)
		if err != nil {
			t.Fatalf("%d shards: %v", n, err)
		}
		for _, r := range results {
			r.touch[n] = pl.Plan(r.block)
		}
		pl.Stop()
	}
	if err := os.WriteFile("PLANS.md", []byte(plans(results)), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		for _, n := range shardCounts {
			tc := r.touch[n]
			switch {
			case tc.Err != nil:
				t.Errorf("%s block %d, %d shards: the planner refuses it: %v\n%s", r.path, r.index, n, tc.Err, r.block.SQL)
			case r.block.Tx && len(tc.Shards) > 1:
				t.Errorf("%s transaction %d spans %d shards at %d per keyspace (%s): %s", r.path, r.index, len(tc.Shards), n, shardList(tc), Shape(r.block))
			case !r.block.Tx && Writes(r.block) && len(tc.Shards) > 1:
				t.Errorf("%s statement %d writes %d shards at %d per keyspace (%s): %s", r.path, r.index, len(tc.Shards), n, shardList(tc), Shape(r.block))
			}
		}
	}
}

func shardList(tc Touch) string {
	var s []string
	for sh := range tc.Shards {
		s = append(s, sh)
	}
	sort.Strings(s)
	return strings.Join(s, " ")
}

// plans renders PLANS.md: per path, per block, the shards touched per keyspace at each count.
func plans(results []*result) string {
	var b strings.Builder
	b.WriteString("# Sharding plans\n\n")
	b.WriteString("Written by `cd sharding && go test ./...` (TestTransactionsTouchOneShard) from `testdata/*.sql`\n")
	b.WriteString("(the SQL of the real code paths, recorded by the main module's `TestShardingCapture`), planned by\n")
	b.WriteString("Vitess's vtexplain over `vschema.json` with each keyspace split into 2, 4 and 8 shards. A cell is\n")
	b.WriteString("the shards touched per keyspace (`u` coupond_user, `t` coupond_template); **✗** marks a\n")
	b.WriteString("transaction or an autocommit write that spans shards, which the gate refuses. Autocommit reads\n")
	b.WriteString("may scatter.\n\n")
	var bad []string
	last := ""
	for _, r := range results {
		if r.path != last {
			fmt.Fprintf(&b, "\n## %s\n\n| # | kind | statements |", r.path)
			for _, n := range shardCounts {
				fmt.Fprintf(&b, " %d shards |", n)
			}
			b.WriteString("\n|---|---|---|" + strings.Repeat("---|", len(shardCounts)) + "\n")
			last = r.path
		}
		kind := "autocommit"
		if r.block.Tx {
			kind = "tx"
		}
		fmt.Fprintf(&b, "| %d | %s | %s |", r.index, kind, strings.ReplaceAll(Shape(r.block), "|", "/"))
		spans := false
		for _, n := range shardCounts {
			tc := r.touch[n]
			cell := cellOf(tc)
			if (r.block.Tx || Writes(r.block)) && (len(tc.Shards) > 1 || tc.Err != nil) {
				cell, spans = "**✗** "+cell, true
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
		if spans {
			bad = append(bad, fmt.Sprintf("- %s #%d: %s", r.path, r.index, Shape(r.block)))
		}
	}
	b.WriteString("\n## Transactions and writes that span shards\n\n")
	if len(bad) == 0 {
		b.WriteString("None.\n")
	} else {
		b.WriteString(strings.Join(bad, "\n") + "\n")
	}
	return b.String()
}

func cellOf(tc Touch) string {
	if tc.Err != nil {
		return "refused: " + strings.ReplaceAll(strings.SplitN(tc.Err.Error(), "\n", 2)[0], "|", "/")
	}
	ks := tc.Keyspaces()
	var parts []string
	for _, name := range []string{migrations.KeyspaceUser, migrations.KeyspaceTemplate} {
		if n := ks[name]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", name[len("coupond_"):len("coupond_")+1], n))
		}
	}
	if len(parts) == 0 {
		return "–"
	}
	return strings.Join(parts, " · ")
}

// store.UserShard, by which coupond groups users per shard, is the planner's routing of user_id
// for 10,000 random ids (and the extremes) at each shard count.
func TestUserShardIsThePlannersRouting(t *testing.T) {
	vschema, schema := read(t, "vschema.json"), read(t, "testdata/schema.sql")
	rng := rand.New(rand.NewPCG(20, 7))
	ids := []int64{0, 1, 2, math.MaxInt64, math.MinInt64, -1}
	for len(ids) < 10_000 {
		switch len(ids) % 3 {
		case 0:
			ids = append(ids, rng.Int64())
		case 1:
			ids = append(ids, rng.Int64N(1_000_000))
		default:
			ids = append(ids, rng.Int64N(1<<40))
		}
	}
	ctx := context.Background()
	for _, n := range shardCounts {
		ranges, err := key.GenerateShardRanges(n, 0)
		if err != nil {
			t.Fatal(err)
		}
		pl, err := NewPlanner(ctx, vschema, schema, n)
		if err != nil {
			t.Fatal(err)
		}
		bad := 0
		for _, id := range ids {
			got, err := pl.Route(id)
			if err != nil {
				t.Fatal(err)
			}
			if want := ranges[store.UserShard(id, n)]; got != want && bad < 10 {
				bad++
				t.Errorf("%d shards: user %d: planner routes to %s, store.UserShard to %s", n, id, got, want)
			}
		}
		pl.Stop()
	}
}
