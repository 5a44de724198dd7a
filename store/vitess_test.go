package store

import "testing"

func TestCheckShards(t *testing.T) {
	listed := []string{"coupond_template/-80", "coupond_template/80-", "coupond_user/-40", "coupond_user/40-80", "coupond_user/80-c0", "coupond_user/c0-"}
	if err := checkShards(listed, "coupond_user", 4); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{1, 2, 8, 3} {
		if err := checkShards(listed, "coupond_user", n); err == nil {
			t.Errorf("4 shards passed for COUPON_MYSQL_USER_SHARDS=%d", n)
		}
	}
	if err := checkShards([]string{"coupond_user/-"}, "coupond_user", 1); err != nil {
		t.Fatal(err)
	}
	uneven := []string{"coupond_user/-40", "coupond_user/40-"}
	if err := checkShards(uneven, "coupond_user", 2); err == nil {
		t.Error("uneven ranges passed")
	}
	if got := equalRanges(8); got[0] != "-20" || got[3] != "60-80" || got[7] != "e0-" {
		t.Errorf("equalRanges(8) = %v", got)
	}
}
