-- Write a table's views with the seq they show, unless newer ones are there already.
-- KEYS: 1 applied-seq key, 2 updates stream, 3 the partition's views-written count,
--       4.. view keys
-- ARGV: 1 seq, 2 updates max length, 3.. view JSON (same order as KEYS[4..])
-- Answers 0 when newer views were there, else the partition's count after this write.
local applied = tonumber(redis.call('GET', KEYS[1]) or '0')
local seq = tonumber(ARGV[1])
if applied >= seq then
  return 0
end
-- Replicas get these writes, the AOF does not: the views are derived from the log, and
-- they were ~31 of the ~37 KB the AOF took per command (orrery bench). After a restart
-- from the AOF they are as the last rewrite left them, with the count, which then is
-- lower than a projector saw and tells it to project the partition's tables again
-- (projections/reverts.py).
redis.set_repl(redis.REPL_REPLICA)
-- The XADD first: the one call that can fail (a key of another type), before any write.
redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[2], '*', 'seq', seq)
for i = 4, #KEYS do
  redis.call('SET', KEYS[i], ARGV[i - 1])
end
redis.call('SET', KEYS[1], seq)
local written = redis.call('INCR', KEYS[3])
redis.set_repl(redis.REPL_ALL)
return written
