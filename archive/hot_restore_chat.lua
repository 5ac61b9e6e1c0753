if redis.call('EXISTS', KEYS[2]) == 1 then return -2 end
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
for i = 1, #ARGV, 2 do redis.call('XADD', KEYS[1], ARGV[i], '__data__', ARGV[i + 1]) end
return #ARGV / 2
