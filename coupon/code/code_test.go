package code

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var testCodec = New([]byte("code-test-key"))

// sampleIDs are snowflake-like ids (dense runs from one node and millisecond, as a burst issues
// them) and random 64-bit values including the extremes.
func sampleIDs() []int64 {
	r := rand.New(rand.NewPCG(1, 2))
	ids := []int64{0, 1, -1, math.MaxInt64, math.MinInt64}
	base := int64(1)<<62 | 12345<<22
	for i := range int64(20000) {
		ids = append(ids, base+i)
	}
	for range 20000 {
		ids = append(ids, int64(r.Uint64()))
	}
	return ids
}

// Every id's code decodes to it, and distinct ids have distinct codes: the permutation is a
// bijection on the samples.
func TestCodesRoundTripAndAreDistinct(t *testing.T) {
	seen := map[string]int64{}
	for _, id := range sampleIDs() {
		c := testCodec.Encode(id)
		if len(c) != Len || strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") != "" {
			t.Fatalf("code of %d is %q: want %d characters of A-Z, 2-7", id, c, Len)
		}
		if other, dup := seen[c]; dup && other != id {
			t.Fatalf("ids %d and %d share the code %s", other, id, c)
		}
		seen[c] = id
		got, err := testCodec.Decode(c)
		if err != nil || got != id {
			t.Fatalf("Decode(Encode(%d)) = %d, %v", id, got, err)
		}
	}
}

// Consecutive ids do not give related codes: a user who sees their code learns nothing of the
// next coupon's (about half of the 80 bits differ, as for unrelated values).
func TestConsecutiveIDsGiveUnrelatedCodes(t *testing.T) {
	var b0, b1 [10]byte
	total := 0
	const n = 2000
	for i := range int64(n) {
		id := int64(1)<<62 + i
		if _, err := encoding.Decode(b0[:], []byte(testCodec.Encode(id))); err != nil {
			t.Fatal(err)
		}
		if _, err := encoding.Decode(b1[:], []byte(testCodec.Encode(id+1))); err != nil {
			t.Fatal(err)
		}
		for j := range b0 {
			for x := b0[j] ^ b1[j]; x != 0; x &= x - 1 {
				total++
			}
		}
	}
	if mean := float64(total) / n; mean < 36 || mean > 44 {
		t.Fatalf("consecutive ids' codes differ in %.1f of 80 bits on average; want about 40", mean)
	}
}

// A code of another key, a code with one character altered, and text that is no code at all are
// refused with ErrInvalid. Of altered codes at most about 1 in 2^16 may pass the check by chance;
// none of these may.
func TestDecodeRefusesWrongCodes(t *testing.T) {
	id := int64(1)<<62 | 987654321
	good := testCodec.Encode(id)
	other := New([]byte("another key"))
	if other.Encode(id) == good {
		t.Fatal("two keys give the same code")
	}
	if _, err := other.Decode(good); !errors.Is(err, ErrInvalid) {
		t.Fatalf("a code decoded under another key: %v", err)
	}
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	passed := 0
	for i := range Len {
		for _, r := range alphabet {
			if byte(r) == good[i] {
				continue
			}
			altered := good[:i] + string(r) + good[i+1:]
			if got, err := testCodec.Decode(altered); err == nil {
				passed++
				if got == id {
					t.Fatalf("altered code %s decodes to the original id", altered)
				}
			} else if !errors.Is(err, ErrInvalid) {
				t.Fatalf("altered code %s: %v", altered, err)
			}
		}
	}
	if passed > 0 {
		t.Fatalf("%d of %d one-character alterations pass the check", passed, Len*31)
	}
	for _, s := range []string{"", good[:Len-1], good + "A", strings.ToLower(good), good[:Len-1] + "1", good[:Len-1] + "="} {
		if _, err := testCodec.Decode(s); !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%q) = %v; want ErrInvalid", s, err)
		}
	}
}

// Random 16-character strings pass the check about once in 2^16: the guessed-code rate the check
// alone allows (the permutation then must land on an issued id).
func TestRandomGuessesRarelyPassTheCheck(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
	const n = 1 << 20
	passed := 0
	var b [Len]byte
	for range n {
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		if _, err := testCodec.Decode(string(b[:])); err == nil {
			passed++
		}
	}
	if passed > 64 { // expected 16; 64 is more than 10 standard deviations above
		t.Fatalf("%d of %d random strings pass the check; want about %d", passed, n, n>>16)
	}
}
