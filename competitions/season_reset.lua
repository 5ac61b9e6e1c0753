-- A season's soft reset, applied once: only while its mark is 'pending', and only if
-- each rating is still the one the caller widened (else -1: read again and retry; a
-- game rated meanwhile is then widened too). Sets the mark 'done'.
-- KEYS[1] the game's ratings hash, KEYS[2] its soft resets' marks.
-- ARGV[1] the season number, then (player, rating read, widened rating) triples.
if redis.call('HGET', KEYS[2], ARGV[1]) ~= 'pending' then
  return 0
end
for i = 2, #ARGV, 3 do
  if redis.call('HGET', KEYS[1], ARGV[i]) ~= ARGV[i + 1] then
    return -1
  end
end
for i = 2, #ARGV, 3 do
  redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
end
redis.call('HSET', KEYS[2], ARGV[1], 'done')
return 1
