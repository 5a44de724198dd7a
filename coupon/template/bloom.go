package template

import (
	"context"
	"encoding/binary"
	"fmt"

	"coupond/coupon/keys"
	"coupond/ent/coupontemplate"

	"github.com/bits-and-blooms/bloom/v3"
)

// The Bloom filter of existing template ids lives in one Redis bitmap at keys.Bloom(), shared by all
// instances. Bits 0…m-1 are the filter (k bits per id, positions from bits-and-blooms/bloom's
// hashing of the id as 8 big-endian bytes); bit m is the ready bit, set by EnsureBloom once every
// id in the database has been added. A filter that is not ready never reports an id as absent, so
// a lost or half-built bitmap costs database reads, never hidden templates.

const (
	bloomPage  = 10_000 // ids read from the database per query when rebuilding the filter
	bloomChunk = 1_000  // ids per BITFIELD command when rebuilding the filter
)

// bloomOffsets returns the k bit positions of id in the filter.
func (c *Cache) bloomOffsets(id int64) []uint64 {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(id))
	locs := bloom.Locations(b[:], c.bloomK)
	for i := range locs {
		locs[i] %= c.bloomM
	}
	return locs
}

// bloomSetArgs appends to args the BITFIELD operations that set the bits of id.
func (c *Cache) bloomSetArgs(args []any, id int64) []any {
	for _, off := range c.bloomOffsets(id) {
		args = append(args, "SET", "u1", off, 1)
	}
	return args
}

// BloomAdd adds id to the Bloom filter in one BITFIELD command. Call it BEFORE the template row is
// inserted: a spare Bloom entry is harmless, a missing one would hide the template.
func (c *Cache) BloomAdd(ctx context.Context, id int64) error {
	if err := c.rdb.BitField(ctx, keys.Bloom(), c.bloomSetArgs(nil, id)...).Err(); err != nil {
		return fmt.Errorf("template bloom: add %d: %w", id, err)
	}
	return nil
}

// bloomMayContain reports whether id may exist, in one BITFIELD_RO command. It is false only when
// the filter is ready and one of id's bits is unset; it never changes the filter (a miss adding the id would pollute it).
func (c *Cache) bloomMayContain(ctx context.Context, id int64) (bool, error) {
	args := make([]any, 0, 2*(c.bloomK+1))
	for _, off := range c.bloomOffsets(id) {
		args = append(args, "u1", off)
	}
	args = append(args, "u1", c.bloomM) // the ready bit
	bits, err := c.rdb.BitFieldRO(ctx, keys.Bloom(), args...).Result()
	if err != nil {
		return false, fmt.Errorf("template bloom: test %d: %w", id, err)
	}
	if bits[len(bits)-1] == 0 {
		return true, nil
	}
	for _, b := range bits[:len(bits)-1] {
		if b == 0 {
			return false, nil
		}
	}
	return true, nil
}

// EnsureBloom makes the Bloom filter complete; call it at start-up. When the bitmap is ready it
// does nothing. Otherwise (the key is missing, or a previous rebuild did not finish) it adds every
// template id in the database, read in pages of bloomPage ids, one pipelined round trip per page,
// then sets the ready bit. Ids that BloomAdd sets meanwhile are kept, and instances that rebuild at
// the same time only set the same bits.
func (c *Cache) EnsureBloom(ctx context.Context) error {
	ready, err := c.rdb.GetBit(ctx, keys.Bloom(), int64(c.bloomM)).Result()
	if err != nil {
		return fmt.Errorf("template bloom: %w", err)
	}
	if ready == 1 {
		return nil
	}
	var after int64
	for {
		ids, err := c.db.CouponTemplate.Query().
			Where(coupontemplate.IDGT(after)).
			Order(coupontemplate.ByID()).
			Limit(bloomPage).
			IDs(ctx)
		if err != nil {
			return fmt.Errorf("template bloom: read ids: %w", err)
		}
		if len(ids) == 0 {
			break
		}
		pipe := c.rdb.Pipeline()
		for start := 0; start < len(ids); start += bloomChunk {
			args := make([]any, 0, 4*int(c.bloomK)*bloomChunk)
			for _, id := range ids[start:min(start+bloomChunk, len(ids))] {
				args = c.bloomSetArgs(args, id)
			}
			pipe.BitField(ctx, keys.Bloom(), args...)
		}
		if _, err := pipe.Exec(ctx); err != nil {
			return fmt.Errorf("template bloom: rebuild: %w", err)
		}
		after = ids[len(ids)-1]
		if len(ids) < bloomPage {
			break
		}
	}
	if err := c.rdb.SetBit(ctx, keys.Bloom(), int64(c.bloomM), 1).Err(); err != nil {
		return fmt.Errorf("template bloom: mark ready: %w", err)
	}
	return nil
}
