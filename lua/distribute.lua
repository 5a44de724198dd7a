#!lua
-- distribute: deduct one distribution batch — stock and per-user limits for every row at once —
-- and journal what was decided, in one atomic round trip. On a template with stock shards it runs
-- once per stock shard a batch has users of, with that shard's keys (all on the shard's slot):
-- {t<id>} below is then the shard's hash tag, and the rows are the batch's rows of the shard's users.
--
-- KEYS[1]      template hash      {t<id>}:tpl        (fields data stock status end limit epoch; the claim script's)
-- KEYS[2]      the task's journals {t<id>}:dist:<task> (a hash: field = a batch's start, value = its journal)
-- KEYS[2+i]    row i's user claim hash {t<id>}:u:<user> (fields n, seq; the claim script's counter)
-- KEYS[3+n]    the template's set of journal hashes with batches in flight {t<id>}:dists (n rows; the
--              task's hash is added when a journal is written)
-- ARGV[1]      the batch's start: the task's resume position the batch follows
-- ARGV[2]      now, unix milliseconds
-- ARGV[3]      "1": borrowing (a stock shard that may borrow: a stock short of the rows is answered
--              7 SHORT and nothing is written); "0": the rows beyond the stock are OUT_OF_STOCK
-- ARGV[4]      the rows, in KEYS' order, as one string: "<row number>:<user id>,…" (one user at
--              most once per batch); the script only copies it into the journal
--
-- Returns an array {status, epoch, code_1, rc_1, code_2, rc_2, …} (never a bit-packed number, which overflows):
--   status: 0 deducted now, 1 replayed (the hash already held this batch's journal: its stored
--           outcome, nothing deducted again), 6 CACHE_MISSING (no complete template hash: nothing
--           written, never a Lua error; reload the cache and call again), 7 SHORT (borrowing only,
--           the template not ended: fewer units in stock than rows whose user is below the limit;
--           the array is {7, units missing}; nothing written: borrow that many and call again)
--   epoch:  the template hash's epoch when the batch was deducted (journaled; 0 when unset), which
--           tells the reconciliation whether the rows came before or after its snapshot
--   code_i: 0 OK, 1 OUT_OF_STOCK, 2 LIMIT_REACHED, 4 ENDED (template not ACTIVE or past its end)
--   rc_i:   row i's receive_count (the user's seq + 1, the claim script's sequence, so claims and distribution share one 1-based count); 0 unless OK
--
-- Each OK row did, as an accepted claim does: stock -1, n +1, seq +1, the claim hash expiring at the
-- template's end (seconds). Once a row's hash holds n=1, seq=1 (its user had none, or a hash
-- without seq and n 0), a later row whose user has no hash gets a copy of it, expiry included, in
-- one command (COPY, Redis 6.2+; it copies nothing onto an existing hash): the same hash as two
-- HINCRBYs and an EXPIREAT would leave, in one command a row instead of three. The claim hashes
-- hold no other fields (the claim scripts write n and seq alone).
--
-- The journal is a string in field ARGV[1] of KEYS[2], without TTL:
-- "<start>:<epoch>|<ARGV[4]>|<code_1>,<rc_1>,<code_2>,<rc_2>,…" (the rows as given, then the
-- outcomes as returned; lua.ParseJournal reads it). A journal written by an earlier version, as
-- JSON ({start, rows: [[row, user, code, rc], …]}) or as a string without ":<epoch>", is still
-- replayed (epoch 0).
-- distribute_after_commit.lua deletes the field once the batch is committed. A task may have more
-- than one batch in flight (the next batch is deducted while the last one is written). The hash's
-- key is in the template's set until its last field is gone (a cache rebuild counts the units the
-- journals hold).
local journal = redis.call('HGET', KEYS[2], ARGV[1])
if journal then
  local out = {1, tonumber(string.match(journal, '^%d+:(%d+)|')) or 0}
  if string.sub(journal, 1, 1) == '{' then
    for _, r in ipairs(cjson.decode(journal).rows) do
      out[#out + 1] = r[3]
      out[#out + 1] = r[4]
    end
    return out
  end
  local outcomes = string.match(journal, '|([^|]*)$')
  for v in string.gmatch(outcomes, '%d+') do
    out[#out + 1] = tonumber(v)
  end
  return out
end

local tpl = redis.call('HMGET', KEYS[1], 'data', 'stock', 'status', 'end', 'limit', 'epoch')
local stock, endMs, limit = tonumber(tpl[2]), tonumber(tpl[4]), tonumber(tpl[5])
if not tpl[1] or not stock or not endMs or not limit then
  return {6}
end

local ended = tpl[3] ~= 'ACTIVE' or tonumber(ARGV[2]) >= endMs
if ARGV[3] == '1' and not ended then
  local wanted = 0
  for i = 3, #KEYS - 1 do
    if (tonumber(redis.call('HGET', KEYS[i], 'n')) or 0) < limit then
      wanted = wanted + 1
    end
  end
  if wanted > stock then
    return {7, wanted - stock}
  end
end

local expireAt = string.format('%d', math.ceil(endMs / 1000))
local epoch = tonumber(tpl[6]) or 0
local first -- a row's claim hash holding n=1, seq=1 and expiring at expireAt, once one does
local out, m, taken = {0, epoch}, 2, 0
for i = 3, #KEYS - 1 do
  local key = KEYS[i]
  local code, rc = 0, 0
  if ended then
    code = 4
  elseif stock - taken <= 0 then
    code = 1
  elseif first and redis.call('COPY', first, key) == 1 then
    taken = taken + 1 -- a new user: its hash is a copy of first's, expiry included
    rc = 1
  else
    local n = redis.call('HINCRBY', key, 'n', 1)
    if n > limit then
      redis.call('HINCRBY', key, 'n', -1) -- back to what it was: the user holds limit already
      code = 2
    else
      taken = taken + 1
      rc = redis.call('HINCRBY', key, 'seq', 1)
      redis.call('EXPIREAT', key, expireAt)
      if n == 1 and rc == 1 then
        first = first or key
      end
    end
  end
  out[m + 1], out[m + 2], m = code, rc, m + 2
end
if taken > 0 then
  redis.call('HINCRBY', KEYS[1], 'stock', -taken)
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[1] .. ':' .. epoch .. '|' .. ARGV[4] .. '|' .. table.concat(out, ',', 3))
redis.call('SADD', KEYS[#KEYS], KEYS[2])
return out
