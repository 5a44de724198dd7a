#!lua flags=allow-oom
-- distribute_after_commit: the script of a committed distribution batch's after-commit work: give
-- back what MySQL did not take, exactly once, by deleting the batch's journal. On a template with
-- stock shards it runs once per stock shard holding a journal of the batch, with that shard's keys
-- (all on the shard's slot: {t<id>} below is then the shard's hash tag).
--
-- KEYS[1]      template hash    {t<id>}:tpl
-- KEYS[2]      the task's journals {t<id>}:dist:<task> (field = a batch's start)
-- KEYS[2+i]    user claim hash  {t<id>}:u:<user> of a row the journal accepted and MySQL refused
-- KEYS[#KEYS]  the template's set of journal hashes with batches in flight {t<id>}:dists
-- ARGV[1]      the batch's start, as given to distribute.lua
-- ARGV[2]      stock units to give back (rows MySQL refused for a reason that frees the unit)
-- ARGV[3]      "1" when MySQL refused rows for want of stock Redis had shown (stock drift): the
--              template hash is deleted instead of given units back, so the next lookup rebuilds
--              it exactly from MySQL (as the claims' persister does on drift)
--
-- Returns 1 when this call did the batch's after-commit; 0 when the batch's journal was gone (done
-- before): nothing changed then.
--
-- It deletes the batch's journal (and the hash's entry in the set when it was the hash's last); on drift deletes the template hash,
-- otherwise adds ARGV[2] to "stock" only when the complete hash exists (never a partial hash,
-- which would break later reads); lowers "n" of each KEYS[2+i] by one when the hash exists and n > 0 ("seq"
-- is kept, so no receive_count is reused).
if redis.call('HDEL', KEYS[2], ARGV[1]) == 0 then
  return 0
end
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('SREM', KEYS[#KEYS], KEYS[2])
end
local give = tonumber(ARGV[2])
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[1])
elseif give > 0 and redis.call('HEXISTS', KEYS[1], 'data') == 1 then
  redis.call('HINCRBY', KEYS[1], 'stock', give)
end
for i = 3, #KEYS - 1 do
  local n = tonumber(redis.call('HGET', KEYS[i], 'n'))
  if n and n > 0 then
    redis.call('HINCRBY', KEYS[i], 'n', -1)
  end
end
return 1
