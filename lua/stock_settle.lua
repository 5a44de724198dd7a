#!lua flags=allow-oom
-- stock_settle: step 3 of a borrow (lend → receive → settle), on the lender's slot: close the
-- lend's journal entry with the outcome stock_receive decided.
--
-- KEYS[1]  lender's stock hash    {<shard tag>}:tpl           (fields data stock gen back)
-- KEYS[2]  lender's lend journal  {<shard tag>}:lends
-- KEYS[3]  lender's settled mark  {<shard tag>}:lent:<lendId>
-- ARGV[1]  lend id
-- ARGV[2]  outcome: "1" received (the units are in the borrower's stock), "0" cancelled
-- ARGV[3]  settled-mark TTL in seconds
--
-- Returns the units settled: 0 when the journal has no entry ARGV[1] (settled before, or never
-- lent; nothing changes). Otherwise, in one step: when cancelled the units go back to the
-- lender's stock, back + units (the hash's count of units ever given back), only into a complete
-- hash of the lend's generation (when it is gone or rebuilt, the rebuild counted them from the
-- database), the entry is deleted and KEYS[3] set, so a replayed lend lends nothing.
local open = redis.call('HGET', KEYS[2], ARGV[1])
if not open then
  return 0
end
local units, gen = string.match(open, '^(%d+):%d+:%d+:?(.*)$')
units = tonumber(units)
if ARGV[2] == '0' then
  local tpl = redis.call('HMGET', KEYS[1], 'data', 'gen')
  if tpl[1] and (tpl[2] or '') == (gen or '') then
    redis.call('HINCRBY', KEYS[1], 'stock', units)
    redis.call('HINCRBY', KEYS[1], 'back', units)
  end
end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('SET', KEYS[3], '1', 'EX', ARGV[3])
return units
