-- A table's deadlines and "your turn" notices, unless a newer seq was applied already.
-- KEYS: 1 applied-seq key, 2 notified hash, 3 partition deadlines zset,
--       4 the table's members string, 5.. one notice stream per candidate (ARGV order)
-- ARGV: 1 seq, 2 notice streams' max length, 3 "1" when the table has ended,
--       4 member count n, then n pairs (member, score), then per candidate:
--       seat, turn, notice JSON
-- Returns the seats notified now.
local applied = tonumber(redis.call('GET', KEYS[1]) or '0')
local seq = tonumber(ARGV[1])
if applied >= seq then
  return {}
end
redis.call('SET', KEYS[1], seq)
local old = redis.call('GET', KEYS[4])
if old then
  for member in string.gmatch(old, '%S+') do
    redis.call('ZREM', KEYS[3], member)
  end
end
local i = 5
local members = {}
for _ = 1, tonumber(ARGV[4]) do
  redis.call('ZADD', KEYS[3], ARGV[i + 1], ARGV[i])
  table.insert(members, ARGV[i])
  i = i + 2
end
if #members > 0 then
  redis.call('SET', KEYS[4], table.concat(members, ' '))
else
  redis.call('DEL', KEYS[4])
end
local sent = {}
local k = 5
while i <= #ARGV do
  local seat, turn = ARGV[i], tonumber(ARGV[i + 1])
  if turn > tonumber(redis.call('HGET', KEYS[2], seat) or '0') then
    redis.call('HSET', KEYS[2], seat, turn)
    redis.call('XADD', KEYS[k], 'MAXLEN', '~', ARGV[2], '*', '__data__', ARGV[i + 2])
    table.insert(sent, seat)
  end
  i = i + 3
  k = k + 1
end
if ARGV[3] == '1' then
  redis.call('DEL', KEYS[2])
end
return sent
