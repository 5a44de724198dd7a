#!lua flags=allow-oom
-- reconcile_snapshot: read, at one instant, everything of one template that the reconciliation
-- compares with MySQL: the cached stock and total, the claims in the outbox (each with
-- whether its redemption key still exists), the distribution batches in flight and some users'
-- claim counters; and raise the hash's epoch. Its only write is that HINCRBY of the complete hash's
-- field "epoch": every claim (redeem.lua, its outbox field e) and distribution batch
-- (distribute.lua, its journal) carries the epoch the hash had when it took its unit, so a unit
-- carrying an epoch below the one returned here was taken before this script ran, and one carrying
-- it or more after.
--
-- KEYS[1]            template hash        {t<id>}:tpl                 (fields data stock total lent
--                    back got gen), or one stock shard's hash and keys of that shard's tag
-- KEYS[2]            outbox stream        {t<id>}:outbox
-- KEYS[3..2+J]       tasks' journal hashes {t<id>}:dist:<task>        (J = ARGV[1])
-- KEYS[3+J..2+J+C]   users' claim hashes  {t<id>}:u:<user>            (field n; C = ARGV[2])
-- KEYS[3+J+C..]      redemption keys      {t<id>}:rd:<rid>            of the outbox's claims as the
--                    caller read the outbox just before (the script touches no key it is not given)
-- ARGV[1]            J, the number of journal keys
-- ARGV[2]            C, the number of claim hashes
-- ARGV[3]            the most outbox entries to read; a longer outbox is not read (truncated)
-- ARGV[4]            the redemption-key prefix of the template, "<namespace>{t<id>}:rd:": an
--                    entry's redemption key is this prefix and its rid, looked up among KEYS
--
-- Returns an array {cached, stock, total, truncated, entries, journals, counters, counts, epoch}:
--   cached:    1 when the complete hash (with "data") exists, else 0 (stock and total are then 0)
--   stock, total: the hash's fields
--   truncated: 1 when the outbox holds more than ARGV[3] entries (entries is then empty)
--   entries:   a flat array {stream id, rid, user, owed, …}, owed 1 when the claim's redemption key
--              exists (a failed claim whose unit has not been given back yet), 0 when it does not,
--              -1 when it was not among KEYS (an entry appended after the caller's read); an entry
--              without rid or user gives "" for them
--   journals:  one array per journal hash: the journals of its batches in flight (empty when none)
--   counters:  one integer per claim hash: its "n", -1 when the hash or the field does not exist
--   counts:    the hash's fields data, stock, lent, back, got, gen (false where missing; data is
--              returned as 1 when present): its borrow counts, as lua.StockCounts reads them
--   epoch:     the hash's epoch after this script raised it; 0 when the hash is not complete (not
--              raised: a partial hash would break later reads)
local cached, stock, total = 0, 0, 0
local tpl = redis.call('HMGET', KEYS[1], 'data', 'stock', 'total', 'lent', 'back', 'got', 'gen')
if tpl[1] then
  cached, stock, total = 1, tonumber(tpl[2]) or 0, tonumber(tpl[3]) or 0
end
local counts = {tpl[1] and '1', tpl[2], tpl[4], tpl[5], tpl[6], tpl[7]}
local epoch = 0
if cached == 1 then
  epoch = redis.call('HINCRBY', KEYS[1], 'epoch', 1)
end

local nJournals = tonumber(ARGV[1])
local nCounters = tonumber(ARGV[2])
local maxEntries = tonumber(ARGV[3])
local declared = {}
for i = 3 + nJournals + nCounters, #KEYS do
  declared[KEYS[i]] = true
end
local truncated, entries = 0, {}
if redis.call('XLEN', KEYS[2]) > maxEntries then
  truncated = 1
else
  for _, m in ipairs(redis.call('XRANGE', KEYS[2], '-', '+')) do
    local rid, user = '', ''
    local f = m[2]
    for i = 1, #f, 2 do
      if f[i] == 'rid' then rid = f[i + 1] elseif f[i] == 'user' then user = f[i + 1] end
    end
    local owed = 0
    if rid ~= '' then
      local key = ARGV[4] .. rid
      if declared[key] then
        owed = redis.call('EXISTS', key)
      else
        owed = -1
      end
    end
    entries[#entries + 1] = m[1]
    entries[#entries + 1] = rid
    entries[#entries + 1] = user
    entries[#entries + 1] = owed
  end
end

local journals = {}
for i = 3, 2 + nJournals do
  journals[#journals + 1] = redis.call('HVALS', KEYS[i])
end

local counters = {}
for i = 3 + nJournals, 2 + nJournals + nCounters do
  counters[#counters + 1] = tonumber(redis.call('HGET', KEYS[i], 'n')) or -1
end

return {cached, stock, total, truncated, entries, journals, counters, counts, epoch}
