#!lua
-- template_put: write the complete cache hash of one template in a single atomic step.
--
-- KEYS[1]  template hash      {t<id>}:tpl
-- KEYS[2]  null-value key     {t<id>}:null
-- KEYS[3]  rebuild lock       {t<id>}:lock
-- ARGV[1]  expire-at of the hash, unix seconds
-- ARGV[2]  lock token: "" for a write by the data's owner (create, administration); otherwise the
--          token of the rebuild lock the caller holds
-- ARGV[3], ARGV[4], ...  field, value pairs of the hash; they include "stock" and "data"
--
-- Returns 1 when the hash was written, 0 when ARGV[2] is a token the lock no longer holds (the lock
-- expired or a writer broke it, so the caller's database read may be stale): nothing is written.
--
-- A write replaces the hash (DEL, HSET, EXPIREAT) and deletes the null-value key. An owner's write
-- also deletes the lock, so a rebuild in progress, whose database read may predate this write,
-- cannot overwrite it; and when a complete hash (one with "data") exists it keeps the smaller of
-- the cached and the given stock (claims deducted in Redis may not have reached the database), and
-- the cached generation and borrow counts of a stock shard's hash (gen, lent, back, got: lends in
-- flight and the reconciliation's sum of the shards go on as before the write). Any write keeps the
-- hash's epoch (the reconciliation's, see reconcile_snapshot.lua) when the hash has one.
local token = ARGV[2]
if token ~= '' and redis.call('GET', KEYS[3]) ~= token then
  return 0
end

local keep = token == '' and redis.call('HEXISTS', KEYS[1], 'data') == 1
local kept = {gen = true, lent = true, back = true, got = true}
local fields = {}
for i = 3, #ARGV, 2 do
  local name, value = ARGV[i], ARGV[i + 1]
  if name == 'stock' and keep then
    local cached = tonumber(redis.call('HGET', KEYS[1], 'stock'))
    if cached ~= nil and cached < tonumber(value) then
      value = tostring(cached)
    end
  end
  if not kept[name] then
    fields[#fields + 1] = name
    fields[#fields + 1] = value
  end
end
for _, name in ipairs({'gen', 'lent', 'back', 'got'}) do
  local value = nil
  if keep then
    value = redis.call('HGET', KEYS[1], name)
  end
  for i = 3, #ARGV, 2 do
    if not value and ARGV[i] == name then
      value = ARGV[i + 1]
    end
  end
  if value then
    fields[#fields + 1] = name
    fields[#fields + 1] = value
  end
end

local epoch = redis.call('HGET', KEYS[1], 'epoch')
if epoch then
  fields[#fields + 1] = 'epoch'
  fields[#fields + 1] = epoch
end

if token == '' then
  redis.call('DEL', KEYS[3])
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], unpack(fields))
redis.call('EXPIREAT', KEYS[1], ARGV[1])
redis.call('DEL', KEYS[2])
return 1
