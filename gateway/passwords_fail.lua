local n = tonumber(redis.call('HGET', KEYS[1], 'count') or '0') + 1
redis.call('HSET', KEYS[1], 'count', n)
local free = tonumber(ARGV[1])
if n > free then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  local wait = math.min(tonumber(ARGV[2]), 2 ^ math.min(n - free - 1, 30)) * 1000
  redis.call('HSET', KEYS[1], 'until', now + wait)
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[3]) * 1000)
return n
