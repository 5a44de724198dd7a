#!lua flags=allow-oom
-- unlock: release a lock only if it is still held by the caller (compare and delete).
--
-- KEYS[1]  lock key
-- ARGV[1]  the caller's token, the value it set with SET NX PX
--
-- Returns 1 when the lock held ARGV[1] and was deleted, 0 when it had expired or is held by
-- another token (then it is left alone).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
