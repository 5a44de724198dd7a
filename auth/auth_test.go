package auth

import (
	"strconv"
	"testing"
	"time"

	"coupond/coupon"

	"github.com/golang-jwt/jwt/v5"
)

func TestParseChecksEveryTokenAndRemembersGoodOnes(t *testing.T) {
	s := NewSigner("secret-one")
	merchant := coupon.Actor{UserID: 3, Role: coupon.RoleMerchant, Shop: 1001}
	tok, err := s.Issue(merchant, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 { // verified, then from the cache
		got, err := s.Parse(tok)
		if err != nil || got.Expires.IsZero() || time.Until(got.Expires) > time.Hour {
			t.Fatalf("Parse = %+v, %v (want the token's exp, within the hour)", got, err)
		}
		if got.Expires = (time.Time{}); got != merchant {
			t.Fatalf("Parse = %+v, want %+v", got, merchant)
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

func TestParseRefusesBadDatesAndLongLifetimes(t *testing.T) {
	s := NewSigner("secret-one", MaxTTL(24*time.Hour))
	now := time.Now().Unix()
	sign := func(claims jwt.MapClaims) string {
		claims["sub"], claims["role"] = "7", "USER"
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("secret-one"))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for name, c := range map[string]struct {
		claims jwt.MapClaims
		ok     bool
	}{
		"good":                   {jwt.MapClaims{"iat": now, "exp": now + 3600}, true},
		"iat within the leeway":  {jwt.MapClaims{"iat": now + 10, "exp": now + 3600}, true},
		"no iat, 1h left":        {jwt.MapClaims{"exp": now + 3600}, true},
		"iat in the future":      {jwt.MapClaims{"iat": now + 3600, "exp": now + 7200}, false},
		"exp as a string":        {jwt.MapClaims{"iat": now, "exp": strconv.FormatInt(now+3600, 10)}, false},
		"iat as a string":        {jwt.MapClaims{"iat": strconv.FormatInt(now, 10), "exp": now + 3600}, false},
		"exp decades away":       {jwt.MapClaims{"iat": now, "exp": now + 30*365*86400}, false},
		"no iat, exp 2 days out": {jwt.MapClaims{"exp": now + 2*86400}, false},
		"lifetime just over max": {jwt.MapClaims{"iat": now - 3600, "exp": now + 23*3600 + 120}, false},
	} {
		if _, err := s.Parse(sign(c.claims)); (err == nil) != c.ok {
			t.Errorf("%s: Parse error = %v, want ok=%v", name, err, c.ok)
		}
	}
	if _, err := s.Issue(coupon.Actor{UserID: 1, Role: coupon.RoleUser}, 25*time.Hour); err == nil {
		t.Error("Issue accepted a lifetime over MaxTTL")
	}
	if _, err := NewSigner("x", MaxTTL(time.Hour)).Issue(coupon.Actor{UserID: 1, Role: coupon.RoleUser}, 2*time.Hour); err == nil {
		t.Error("Issue accepted 2h under MaxTTL(1h)")
	}
}

// A SERVICE token names its service by sub (no user id, no shop); a person's token needs a
// numeric sub; a PLATFORM token's shop claim is dropped (the platform administers no shop).
func TestServiceTokensAndIgnoredShopClaims(t *testing.T) {
	s := NewSigner("secret-one")
	tok, err := s.Issue(coupon.Actor{Role: coupon.RoleService, Service: "orders"}, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Parse(tok)
	if err != nil || got.Role != coupon.RoleService || got.Service != "orders" || got.UserID != 0 || got.Shop != 0 {
		t.Fatalf("SERVICE token: %+v, %v", got, err)
	}
	sign := func(claims jwt.MapClaims) string {
		claims["exp"] = time.Now().Add(time.Hour).Unix()
		tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString([]byte("secret-one"))
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	for name, c := range map[string]struct {
		claims jwt.MapClaims
		want   coupon.Actor // zero: refused
	}{
		"service with a shop":     {jwt.MapClaims{"sub": "orders", "role": "SERVICE", "shop": "1001"}, coupon.Actor{Role: coupon.RoleService, Service: "orders"}},
		"service named by digits": {jwt.MapClaims{"sub": "42", "role": "SERVICE"}, coupon.Actor{}},
		"service without a name":  {jwt.MapClaims{"sub": "", "role": "SERVICE"}, coupon.Actor{}},
		"service name with space": {jwt.MapClaims{"sub": "order system", "role": "SERVICE"}, coupon.Actor{}},
		"user named by a word":    {jwt.MapClaims{"sub": "orders", "role": "USER"}, coupon.Actor{}},
		"platform with a shop":    {jwt.MapClaims{"sub": "9", "role": "PLATFORM", "shop": "1001"}, coupon.Actor{UserID: 9, Role: coupon.RolePlatform}},
		"user with a shop":        {jwt.MapClaims{"sub": "7", "role": "USER", "shop": "1001"}, coupon.Actor{UserID: 7, Role: coupon.RoleUser}},
	} {
		got, err := s.Parse(sign(c.claims))
		got.Expires = time.Time{}
		if c.want == (coupon.Actor{}) {
			if err == nil {
				t.Errorf("%s: accepted as %+v", name, got)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: Parse = %+v, %v; want %+v", name, got, err, c.want)
		}
	}
}

func TestBearerToken(t *testing.T) {
	for _, c := range []struct {
		in, token string
		ok        bool
	}{
		{"Bearer abc.def", "abc.def", true},
		{"Bearer  abc.def ", "abc.def", true},
		{"Bearer ", "", true},
		{"bearer abc", "", false},
		{"Basic dXNlcjpwYXNz", "", false},
		{"abc.def", "", false},
		{"", "", false},
	} {
		if token, ok := BearerToken(c.in); ok != c.ok || (ok && token != c.token) {
			t.Errorf("BearerToken(%q) = %q, %v; want %q, %v", c.in, token, ok, c.token, c.ok)
		}
	}
}
