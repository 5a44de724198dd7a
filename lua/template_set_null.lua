#!lua
-- template_set_null: remember that a template id does not exist (null-value cache), on behalf of
-- the holder of the rebuild lock.
--
-- KEYS[1]  null-value key     {t<id>}:null
-- KEYS[2]  rebuild lock       {t<id>}:lock
-- ARGV[1]  time to live of the null-value key, milliseconds
-- ARGV[2]  token of the rebuild lock the caller holds
--
-- Returns 1 when the key was set, 0 when the lock no longer holds ARGV[2] (it expired, or a writer
-- such as template_put broke it because the template was just created): nothing is written.
if redis.call('GET', KEYS[2]) ~= ARGV[2] then
  return 0
end
redis.call('SET', KEYS[1], '1', 'PX', ARGV[1])
return 1
