// Package code renders a coupon's id as its unguessable 16-character code and reads it back,
// without storing it: the code is the id under a keyed 64-bit permutation (XTEA, a 64-bit block
// cipher) followed by a keyed 16-bit check, 80 bits in base32 (A–Z, 2–7) as before. Without the
// key, a guessed code must hit a permutation of an issued id and its check at once; with it, a
// code decodes to its coupon's id (the primary key) or is refused.
//
// The key must stay the same for the life of the data: changing it changes every coupon's code.
package code

import (
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base32"
	"encoding/binary"
	"errors"

	// XTEA is deprecated for encrypting data (its 64-bit block is small for chaining many blocks
	// under one key); here it is a permutation of 64-bit ids, each used once, which is what it gives.
	//lint:ignore SA1019 a 64-bit block is the point: the permutation of a 64-bit id
	"golang.org/x/crypto/xtea"
)

// Len is the length of a code.
const Len = 16

// ErrInvalid is Decode's refusal: the text is not a code issued under the key.
var ErrInvalid = errors.New("not a coupon code")

var encoding = base32.StdEncoding.WithPadding(base32.NoPadding)

// Codec renders ids as codes and back under one key. It is safe for concurrent use.
type Codec struct {
	block    cipher.Block
	checkKey []byte
}

// New returns the codec of key (COUPON_CODE_KEY). The cipher's and the check's keys are derived
// from it apart (HMAC-SHA256 of a label each), so neither reveals the other or the key.
func New(key []byte) *Codec {
	block, err := xtea.NewCipher(derive(key, "coupond coupon code cipher v1")[:16])
	if err != nil {
		panic(err) // xtea takes any 16-byte key
	}
	return &Codec{block: block, checkKey: derive(key, "coupond coupon code check v1")}
}

func derive(key []byte, label string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(label))
	return m.Sum(nil)
}

// Encode returns id's code: Len characters of A–Z and 2–7, distinct for distinct ids.
func (c *Codec) Encode(id int64) string {
	var b [10]byte
	binary.BigEndian.PutUint64(b[:8], uint64(id))
	c.block.Encrypt(b[:8], b[:8])
	c.check(b[8:], b[:8])
	return encoding.EncodeToString(b[:])
}

// Decode returns the id whose code s is, or ErrInvalid when s is not one (wrong length or
// alphabet, or a check that does not match: a typo or a guess).
func (c *Codec) Decode(s string) (int64, error) {
	if len(s) != Len {
		return 0, ErrInvalid
	}
	var b [10]byte
	if n, err := encoding.Decode(b[:], []byte(s)); err != nil || n != len(b) {
		return 0, ErrInvalid
	}
	var want [2]byte
	c.check(want[:], b[:8])
	if subtle.ConstantTimeCompare(want[:], b[8:]) != 1 {
		return 0, ErrInvalid
	}
	c.block.Decrypt(b[:8], b[:8])
	return int64(binary.BigEndian.Uint64(b[:8])), nil
}

// check writes the first len(dst) bytes of the keyed HMAC of the enciphered id into dst.
func (c *Codec) check(dst, enciphered []byte) {
	m := hmac.New(sha256.New, c.checkKey)
	m.Write(enciphered)
	copy(dst, m.Sum(nil))
}
