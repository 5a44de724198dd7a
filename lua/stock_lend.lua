#!lua
-- stock_lend: step 1 of a borrow between two stock shards of one template (lend → receive →
-- settle), on the lender's slot: take units out of the lender's sub-stock into its lend journal.
--
-- KEYS[1]  lender's stock hash    {<shard tag>}:tpl           (fields data stock gen lent; complete
--                                                               when it has data)
-- KEYS[2]  lender's lend journal  {<shard tag>}:lends         (field lend id → "units:borrower:ms:gen")
-- KEYS[3]  lender's settled mark  {<shard tag>}:lent:<lendId>
-- ARGV[1]  lend id, unique per borrow (the borrower makes it)
-- ARGV[2]  the borrowing shard's index
-- ARGV[3]  most units wanted, ≥ 1
-- ARGV[4]  now, unix milliseconds
--
-- Returns {units, gen}: the units lent under ARGV[1] and the generation of the lender's hash they
-- were lent from (its "gen" field, "" when it has none; a cache rebuild writes a new one):
--   the journal already holds the lend: its units and gen (a replay lends nothing twice);
--   KEYS[3] exists (the lend was settled): {-1, ""}, nothing changes;
--   no complete hash, or its stock ≤ 0: {0, ""}, nothing is written;
--   else k = min(ARGV[3], ceil(stock / 2)) (a lender keeps half of what it has): stock -k, lent +k
--   (the hash's count of units ever lent, which the reconciliation reads) and the journal entry
--   "k:borrower:now:gen", in one step, so stock + open lends is unchanged.
local open = redis.call('HGET', KEYS[2], ARGV[1])
if open then
  local units, gen = string.match(open, '^(%d+):%d+:%d+:?(.*)$')
  return {tonumber(units), gen or ''}
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  return {-1, ''}
end
local tpl = redis.call('HMGET', KEYS[1], 'data', 'stock', 'gen')
local stock = tonumber(tpl[2])
if not tpl[1] or not stock or stock <= 0 then
  return {0, ''}
end
local gen = tpl[3] or ''
local k = math.min(tonumber(ARGV[3]), math.ceil(stock / 2))
redis.call('HINCRBY', KEYS[1], 'stock', -k)
redis.call('HINCRBY', KEYS[1], 'lent', k)
redis.call('HSET', KEYS[2], ARGV[1], k .. ':' .. ARGV[2] .. ':' .. ARGV[4] .. ':' .. gen)
return {k, gen}
