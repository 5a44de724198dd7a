package claim

import (
	"regexp"
	"strings"
	"testing"
)

// TestValidRequestID checks the hand-written requestId check against the API's pattern.
func TestValidRequestID(t *testing.T) {
	pattern := regexp.MustCompile(`^[A-Za-z0-9._:-]{1,64}$`)
	ids := []string{"", "a", "r-1", "A.b_c:d-9", strings.Repeat("x", 64), strings.Repeat("x", 65),
		"has spaces", "tab\t", "new\nline", "é", "a/b", "a+b", "a\x00", "ÿ", "\u200b", "r1 ", "*", "~"}
	for c := 0; c < 256; c++ {
		ids = append(ids, "r"+string(rune(c)), string([]byte{byte(c)}))
	}
	for _, id := range ids {
		if got, want := validRequestID(id), pattern.MatchString(id); got != want {
			t.Errorf("validRequestID(%q) = %v, want %v", id, got, want)
		}
	}
}
