for i = 1, #KEYS do
  if i ~= 2 and redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
redis.call('SET', KEYS[1], ARGV[1])
for i = 3, #KEYS do redis.call('SET', KEYS[i], ARGV[1]) end
redis.call('HSET', KEYS[2], 'name', ARGV[2], 'hash', ARGV[3], 'created_at', ARGV[4])
return 1
