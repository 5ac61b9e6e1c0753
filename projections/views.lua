-- Write a table's views with the seq they show, unless newer ones are there already.
-- KEYS: 1 applied-seq key, 2 updates stream, 3.. view keys
-- ARGV: 1 seq, 2 updates max length, 3.. view JSON (same order as KEYS[3..])
local applied = tonumber(redis.call('GET', KEYS[1]) or '0')
local seq = tonumber(ARGV[1])
if applied >= seq then
  return 0
end
-- The XADD first: the one call that can fail (a key of another type), before any write.
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'seq', seq)
for i = 3, #KEYS do
  redis.call('SET', KEYS[i], ARGV[i])
end
redis.call('SET', KEYS[1], seq)
return 1
