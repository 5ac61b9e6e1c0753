-- KEYS: log, meta, lease, command stream, then the keys the writes name (by index)
-- ARGV: owner, tournament id, expected seq, new seq, new head, cursor ("": unchanged),
--       entry count, the entries (id, data)..., then writes (op, key index, a, b)...
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 'lease_lost' end
local tid = ARGV[2]
local seq = tonumber(redis.call('HGET', KEYS[2], 'seq:' .. tid) or '0')
if seq ~= tonumber(ARGV[3]) then return 'conflict' end
local n = tonumber(ARGV[7])
local i = 8
for _ = 1, n do
  redis.call('XADD', KEYS[1], ARGV[i], 'e', ARGV[i + 1])
  i = i + 2
end
if n > 0 then
  redis.call('HSET', KEYS[2], 'seq:' .. tid, ARGV[4], 'head:' .. tid, ARGV[5])
end
if ARGV[6] ~= '' then
  redis.call('HSET', KEYS[2], 'cursor', ARGV[6])
  redis.call('XTRIM', KEYS[4], 'MINID', ARGV[6])
end
while i <= #ARGV do
  local op, key, a, b = ARGV[i], KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2], ARGV[i + 3]
  if op == 'set' then
    if b ~= '0' then redis.call('SET', key, a, 'PX', b) else redis.call('SET', key, a) end
  elseif op == 'zadd' then
    redis.call('ZADD', key, b, a)
  end
  i = i + 4
end
return 'ok'
