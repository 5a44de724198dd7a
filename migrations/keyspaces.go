package migrations

// The Vitess keyspaces coupond's tables live in (sharding/vschema.json routes them; its test checks
// that it lists exactly these tables): users' data sharded by user_id, templates and everything
// keyed by template or shop sharded by shop_number, both with the xxhash vindex.
const (
	KeyspaceUser     = "coupond_user"
	KeyspaceTemplate = "coupond_template"
)

// Keyspaces maps each keyspace to its tables, sorted; every table of the migrations is in one.
var Keyspaces = map[string][]string{
	KeyspaceUser: {
		"archive_due", "coupon_reminder", "coupon_settlement", "expired_ledger", "redemption_failure", "stock_batch_fence",
		"user_coupon", "user_coupon_archive",
	},
	KeyspaceTemplate: {
		"coupon_task", "coupon_task_failure", "coupon_template", "coupon_template_log", "issued_ledger", "stock_batch",
		"template_daily_stats",
	},
}

// KeyspaceOf returns the keyspace table is in, or "" when it is in none.
func KeyspaceOf(table string) string {
	for ks, tables := range Keyspaces {
		for _, t := range tables {
			if t == table {
				return ks
			}
		}
	}
	return ""
}
