#!lua flags=allow-oom
-- lease_renew: extend a lease (a lock taken with SET NX PX) only if the caller still holds it.
--
-- KEYS[1]  lease key
-- ARGV[1]  the caller's token, the value it set with SET NX PX
-- ARGV[2]  the new time to live, milliseconds
--
-- Returns 1 when the lease held ARGV[1] and now expires ARGV[2] ms from now, 0 when it had expired
-- or is held by another token (then it is left alone: the caller has lost the lease).
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
