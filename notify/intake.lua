-- A "your turn" entry of the notifiers' input stream, queued for its player and
-- acknowledged in one step (a redelivered entry queues nothing new).
-- KEYS: 1 the player's waiting hash, 2 the due schedule, 3 the input stream,
--       4 the delivery's dedupe key
-- ARGV: 1 table id, 2 notice (JSON), 3 its turn (seq), 4 when a delivery is due (ms),
--       5 player id, 6 group, 7 entry id
if redis.call('EXISTS', KEYS[4]) == 0 then
  local old = redis.call('HGET', KEYS[1], ARGV[1])
  local newer = true
  if old then
    local ok, decoded = pcall(cjson.decode, old)
    if ok and type(decoded) == 'table' and tonumber(decoded['seq'] or -1) >= tonumber(ARGV[3]) then
      newer = false
    end
  end
  if newer then
    redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
  end
  redis.call('ZADD', KEYS[2], 'NX', ARGV[4], ARGV[5])
end
redis.call('XACK', KEYS[3], ARGV[6], ARGV[7])
return 1
