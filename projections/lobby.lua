local applied = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
local seq = tonumber(ARGV[2])
if applied >= seq then return 0 end
if applied ~= tonumber(ARGV[7]) then return -1 end
redis.call('SET', KEYS[2], ARGV[3])
redis.call('HSET', KEYS[1], ARGV[1], seq)
if ARGV[9] ~= '1' then return 1 end
local states = {'open', 'playing', 'finished', 'closed'}
for i, state in ipairs(states) do
  for j = 0, 1 do
    local key = KEYS[2 + (i - 1) * 2 + j + 1]
    if state == ARGV[5] and ARGV[6] ~= '1' then
      redis.call('ZADD', key, 0, ARGV[4])
    else
      redis.call('ZREM', key, ARGV[4])
    end
  end
end
local first = 2 + #states * 2 + 1
local removed = tonumber(ARGV[8])
for i = first, #KEYS do
  if i < first + removed then
    redis.call('ZREM', KEYS[i], ARGV[4])
  else
    redis.call('ZADD', KEYS[i], 0, ARGV[4])
  end
end
return 1
