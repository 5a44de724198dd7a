#!lua flags=allow-oom
-- outbox_ack: acknowledge and delete the outbox entries of a persisted batch, and tell which of
-- them Redis had lost since they were read: the entry and its claim's redemption key are both gone,
-- so the claim script's writes for that claim (stock, the user's counter) are gone too — what a
-- Redis restarted from an AOF older than the read looks like. XACK and XDEL run in one script, so
-- an entry is never left acknowledged but undeleted (no persister would read it again).
--
-- KEYS[1]     outbox stream            {t<id>}:outbox
-- KEYS[2..]   the redemption key of each entry, in ARGV order ({t<id>}:rd:<redemptionId>); for an
--             entry without one (malformed), KEYS[1] (the caller ignores such an entry's position)
-- ARGV[1]     consumer group
-- ARGV[2..]   the entry ids, one per KEYS[2..]
--
-- Returns an array of the 1-based positions (in ARGV[2..]) of the entries that were neither in the
-- stream nor had a redemption key; empty when none was lost.
--
-- One XACK and one XDEL of all the ids when XACK acknowledges every one of them: an entry still
-- pending in the group is still in the stream (only this script deletes outbox entries, and always
-- acknowledges them in the same call), so none was lost. Otherwise (another persister finished
-- some, or Redis rewound) each entry is looked at on its own.
local ids = {}
for i = 2, #ARGV do
  ids[#ids + 1] = ARGV[i]
end
if redis.call('XACK', KEYS[1], ARGV[1], unpack(ids)) == #ids then
  redis.call('XDEL', KEYS[1], unpack(ids))
  return {}
end
local lost = {}
for i, id in ipairs(ids) do
  if redis.call('XDEL', KEYS[1], id) == 0 and redis.call('EXISTS', KEYS[i + 1]) == 0 then
    lost[#lost + 1] = i
  end
end
return lost
