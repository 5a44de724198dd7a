#!lua flags=allow-oom
-- stock_receive: step 2 of a borrow (lend → receive → settle), on the borrower's slot: decide, once
-- and for all, whether the lend's units join the borrower's sub-stock (received) or go back to the
-- lender (cancelled). The sweep cancels a lend a crash left open; whichever of the borrower and the
-- sweep comes first decides.
--
-- KEYS[1]  borrower's stock hash  {<shard tag>}:tpl            (fields data stock gen got)
-- KEYS[2]  the lend's receipt     {<shard tag>}:recv:<lendId>  ("1" received, "0" cancelled)
-- ARGV[1]  the lend's units (as stock_lend returned them), ≥ 1
-- ARGV[2]  "receive" or "cancel"
-- ARGV[3]  receipt TTL in seconds (far longer than a lend stays open)
-- ARGV[4]  the lend's generation (as stock_lend returned it)
--
-- Returns the lend's outcome, 1 received or 0 cancelled:
--   KEYS[2] exists: its value (a replay changes nothing);
--   "receive" into a complete hash of the lend's generation: stock + ARGV[1], got + ARGV[1] (the
--   hash's count of units ever received) and receipt "1", in one step;
--   "receive" without a complete hash (expired or evicted: never write a partial one) or into a
--   hash of another generation (a cache rebuild recounted every unit since the lend), or "cancel":
--   receipt "0"; the units stay in the lender's journal until stock_settle gives them back.
local done = redis.call('GET', KEYS[2])
if done then
  return tonumber(done)
end
if ARGV[2] == 'receive' then
  local tpl = redis.call('HMGET', KEYS[1], 'data', 'gen')
  if tpl[1] and (tpl[2] or '') == ARGV[4] then
    redis.call('HINCRBY', KEYS[1], 'stock', ARGV[1])
    redis.call('HINCRBY', KEYS[1], 'got', ARGV[1])
    redis.call('SET', KEYS[2], '1', 'EX', ARGV[3])
    return 1
  end
end
redis.call('SET', KEYS[2], '0', 'EX', ARGV[3])
return 0
