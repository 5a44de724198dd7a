package auth

import (
	"testing"
	"time"

	"coupond/coupon"
)

func TestParseChecksEveryTokenAndRemembersGoodOnes(t *testing.T) {
	s := NewSigner("secret-one")
	merchant := coupon.Actor{UserID: 3, Role: coupon.RoleMerchant, Shop: 1001}
	tok, err := s.Issue(merchant, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // verified, then from the cache
		if got, err := s.Parse(tok); err != nil || got != merchant {
			t.Fatalf("Parse = %+v, %v", got, err)
		}
	}
	other := NewSigner("secret-two")
	if _, err := other.Parse(tok); err == nil {
		t.Fatal("a token signed with another secret was accepted")
	}
	short, _ := s.Issue(merchant, 1500*time.Millisecond)
	if _, err := s.Parse(short); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2100 * time.Millisecond) // JWT expiry has 1-second resolution
	if _, err := s.Parse(short); err == nil {
		t.Fatal("an expired token was accepted from the cache")
	}
	noShop, _ := s.Issue(coupon.Actor{UserID: 4, Role: coupon.RoleMerchant}, time.Hour)
	if _, err := s.Parse(noShop); err == nil {
		t.Fatal("a merchant token without a shop was accepted")
	}
	bad, _ := s.Issue(coupon.Actor{UserID: 5, Role: "ADMIN"}, time.Hour)
	if _, err := s.Parse(bad); err == nil {
		t.Fatal("an unknown role was accepted")
	}
}
