#!lua
-- template_add_stock: add to the stock of a cached template, only when its complete hash exists.
--
-- KEYS[1]  template hash      {t<id>}:tpl
-- KEYS[2]  rebuild lock       {t<id>}:lock
-- ARGV[1]  amount added to "stock" and "total" (integer)
--
-- Returns 1 when the hash had "data" and was updated ("stock" and "total" increased by ARGV[1],
-- "ver" by one, like the database row's version). Returns 0 when there is no complete hash: the
-- hash is left as it is (never created partially: a partial hash would break later reads) and the lock is deleted, so a rebuild in
-- progress, whose database read may predate the caller's change, cannot write its stale copy.
if redis.call('HEXISTS', KEYS[1], 'data') == 0 then
  redis.call('DEL', KEYS[2])
  return 0
end
redis.call('HINCRBY', KEYS[1], 'stock', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'total', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'ver', 1)
return 1
