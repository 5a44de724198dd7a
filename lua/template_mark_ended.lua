#!lua
-- template_mark_ended: mark a cached template ENDED (terminated), only when its complete hash exists.
--
-- KEYS[1]  template hash      {t<id>}:tpl
-- KEYS[2]  rebuild lock       {t<id>}:lock
-- ARGV     none
--
-- Returns 1 when the hash had "data": "status" is then ENDED, and "ver" was increased by one (like
-- the database row's version) if the status was not ENDED before, so a repeat changes nothing.
-- Returns 0 when there is no complete hash: the hash is left as it is (never created partially:
-- a partial hash would break later reads) and the lock is deleted, so a rebuild in progress, whose database read may predate the
-- caller's change, cannot write its stale copy.
if redis.call('HEXISTS', KEYS[1], 'data') == 0 then
  redis.call('DEL', KEYS[2])
  return 0
end
if redis.call('HGET', KEYS[1], 'status') ~= 'ENDED' then
  redis.call('HSET', KEYS[1], 'status', 'ENDED')
  redis.call('HINCRBY', KEYS[1], 'ver', 1)
end
return 1
