#!lua flags=allow-oom
-- redeem_release: give back a claim accepted by redeem.lua that failed later (compensation).
-- Idempotent: the claim's redemption key is the token of the give-back, so a persister that
-- crashes after releasing and replays the release does not give the counter back twice.
--
-- KEYS[1]  template hash      {t<id>}:tpl
-- KEYS[2]  user's claim hash  {t<id>}:u:<user>
-- KEYS[3]  request key        {t<id>}:req:<user>:<requestId>; "" or a key equal to KEYS[1] or
--          KEYS[2] (a same-tag dummy, for Cluster routing) means the claim had no request key
-- KEYS[4]  redemption key     {t<id>}:rd:<redemptionId>, set by redeem.lua (KEYS[5]) for every
--          accepted claim; required
-- No ARGV: every failed claim gives its unit back (a rebuild counts it as owed until then; after
-- drift the persister drops the hash so the rebuild takes MySQL's stock).
--
-- Returns an array {n_after, stock_after}:
--   {-1, -1}: KEYS[4] does not exist (the claim was already released, its key expired, or the
--             redemption id was never accepted): nothing was changed.
--   otherwise n_after is the user's "n" after the release (0 when the claim hash does not exist);
--   stock_after is the template hash's "stock" after the release when the complete hash exists
--   (after the give-back), -1 otherwise.
--
-- Steps, in order:
--  1. DEL KEYS[4]; when it deleted nothing, return {-1, -1} (no other key is read or written).
--  2. "n" goes down by one only when the claim hash exists and n > 0 (never below zero, never a
--     hash created; "seq" is untouched, so a receive_count is never handed out twice).
--  3. The stock goes up by one only when the complete template hash (one with "data") exists: a partial hash is never created (it would break later reads); a missing hash is rebuilt from the
--     database, which holds the truth.
--  4. The request key is deleted, so the user may retry with the same request id.
if redis.call('DEL', KEYS[4]) == 0 then
  return {-1, -1}
end

local nAfter = 0
local n = tonumber(redis.call('HGET', KEYS[2], 'n'))
if n and n > 0 then
  nAfter = redis.call('HINCRBY', KEYS[2], 'n', -1)
elseif n then
  nAfter = n
end

local stockAfter = -1
if redis.call('HEXISTS', KEYS[1], 'data') == 1 then
  stockAfter = redis.call('HINCRBY', KEYS[1], 'stock', 1)
end

if KEYS[3] ~= '' and KEYS[3] ~= KEYS[1] and KEYS[3] ~= KEYS[2] then
  redis.call('DEL', KEYS[3])
end
return {nAfter, stockAfter}
