for i = 3, #KEYS do redis.call('ZREM', KEYS[i], ARGV[2]) end
redis.call('DEL', KEYS[2])
redis.call('HDEL', KEYS[1], ARGV[1])
return 1
