local meta = redis.call('HMGET', KEYS[1], 'seq', 'hash', 'phase')
if not meta[1] then
  if redis.call('EXISTS', KEYS[2]) == 1 then return 'gone' end
  return 'missing'
end
if meta[1] ~= ARGV[2] or meta[2] ~= ARGV[3] or (meta[3] ~= 'finished' and meta[3] ~= 'closed') then
  return 'changed'
end
local top = redis.call('XREVRANGE', KEYS[6], '+', '-', 'COUNT', 1)
if (top[1] and top[1][1] or '') ~= ARGV[6] then return 'chat_changed' end
local members = redis.call('GET', KEYS[5])
if members then
  for member in string.gmatch(members, '%S+') do redis.call('ZREM', KEYS[4], member) end
end
for i = 5, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[3], ARGV[1])
redis.call('HSET', KEYS[2], 'head', ARGV[3], 'finished', ARGV[4], 'archived', ARGV[5])
return 'deleted'
