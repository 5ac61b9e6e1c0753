-- After a delivery (or a decision to wait): the notices it took care of leave the
-- player's waiting hash (each only if no newer one replaced it meanwhile); the player
-- leaves the schedule when nothing waits, else is due again at ARGV[3]. Nothing is
-- changed in the schedule when the caller's lease was lost (another notifier holds it).
-- KEYS: 1 the player's waiting hash, 2 the due schedule
-- ARGV: 1 player id, 2 the lease (its score), 3 next due time (ms), then table id and
--       notice pairs to remove
for i = 4, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call('HDEL', KEYS[1], ARGV[i])
  end
end
local score = redis.call('ZSCORE', KEYS[2], ARGV[1])
if score and tonumber(score) ~= tonumber(ARGV[2]) then
  return 0
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 1
end
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 2
