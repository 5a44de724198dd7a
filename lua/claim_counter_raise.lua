#!lua
-- claim_counter_raise: raise users' claim counters to the coupons MySQL holds for them, never lower
-- one. After Redis lost claims that MySQL has persisted, a counter is below the user's coupons and
-- would let a repeated claim through; a concurrent claim's increment is kept.
--
-- KEYS[1..n]  the users' claim hashes, all of one template  {t<id>}:u:<user>
-- ARGV[1]     unix seconds at which a raised hash expires (the template's end)
-- ARGV[2..]   for each KEYS[i], ARGV[i+1]: the coupons MySQL holds for that user (its floor)
--
-- Returns how many counters were raised ("n" set to the floor and the expiry set); a counter
-- already at least its floor is left alone.
local raised = 0
for i = 1, #KEYS do
  local floor = tonumber(ARGV[i + 1])
  if tonumber(redis.call('HGET', KEYS[i], 'n') or '0') < floor then
    redis.call('HSET', KEYS[i], 'n', floor)
    redis.call('EXPIREAT', KEYS[i], ARGV[1])
    raised = raised + 1
  end
end
return raised
