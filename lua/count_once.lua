#!lua
-- count_once: add to a stats hash's counters once per event, however often the caller replays it.
--
-- KEYS[1]  the stats hash (keys.DailyStats)
-- KEYS[2]  the event's marker key (keys.Counted); same hash tag as KEYS[1]
-- ARGV[1]  the marker's lifetime in seconds (longer than any replay of the event can come)
-- ARGV[2…] pairs: field, integer increment
--
-- Returns 1 when the event was counted now (marker set, every HINCRBY done), 0 when its marker
-- already existed (counted before: nothing changes).
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[1]) == false then
  return 0
end
for i = 2, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
end
return 1
