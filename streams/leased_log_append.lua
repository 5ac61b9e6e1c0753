-- KEYS: log, meta, lease, command stream, then the keys the writes name (by index)
-- ARGV: owner, seq field, head field, expected seq, new seq, new head,
--       cursor ("": unchanged), entry count, the entries (id, data)...,
--       then writes (op, key index, a, b)...
if redis.call('GET', KEYS[3]) ~= ARGV[1] then return 'lease_lost' end
local seq = tonumber(redis.call('HGET', KEYS[2], ARGV[2]) or '0')
if seq ~= tonumber(ARGV[4]) then return 'conflict' end
local n = tonumber(ARGV[8])
local i = 9
for _ = 1, n do
  redis.call('XADD', KEYS[1], ARGV[i], 'e', ARGV[i + 1])
  i = i + 2
end
if n > 0 then
  redis.call('HSET', KEYS[2], ARGV[2], ARGV[5], ARGV[3], ARGV[6])
end
if ARGV[7] ~= '' then
  redis.call('HSET', KEYS[2], 'cursor', ARGV[7])
  redis.call('XTRIM', KEYS[4], 'MINID', ARGV[7])
end
while i <= #ARGV do
  local op, key, a, b = ARGV[i], KEYS[tonumber(ARGV[i + 1])], ARGV[i + 2], ARGV[i + 3]
  if op == 'set' then
    if b ~= '0' then redis.call('SET', key, a, 'PX', b) else redis.call('SET', key, a) end
  elseif op == 'zadd' then
    redis.call('ZADD', key, b, a)
  elseif op == 'zkeep' then
    redis.call('ZREMRANGEBYRANK', key, 0, -1 - tonumber(a))
  end
  i = i + 4
end
return 'ok'
