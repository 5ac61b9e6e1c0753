local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('HSET', KEYS[1], ARGV[1], now)
local live = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if now - tonumber(all[i + 1]) > tonumber(ARGV[2]) then
    redis.call('HDEL', KEYS[1], all[i])
  else
    table.insert(live, all[i])
  end
end
return live
