-- The next season in place of the one it ends, only if the key still holds that one
-- (its JSON as the caller read it): of two rollovers of the same season, one writes.
-- KEYS[1] the game's season key; ARGV[1] the season read, ARGV[2] the next season.
if redis.call('GET', KEYS[1]) ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[1], ARGV[2])
return 1
