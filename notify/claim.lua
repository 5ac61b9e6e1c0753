-- Players whose delivery is due, each leased to the caller: its score moves to the
-- lease's end, so no other notifier takes it before then (a crashed caller's comes back
-- when the lease ends).
-- KEYS: 1 the due schedule.  ARGV: 1 now (ms), 2 lease (ms), 3 how many at most
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local lease = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, player in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', lease, player)
end
return due
