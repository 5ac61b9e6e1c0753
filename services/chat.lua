-- Post one chat message (services/chat.py): dedupe, rate limit, append, cap.
-- KEYS[1] chat stream, KEYS[2] the author's rate key, KEYS[3] the command's dedupe key,
-- KEYS[4] the table's meta hash
-- ARGV[1] entry JSON, ARGV[2] rate (messages per window), ARGV[3] window ms,
-- ARGV[4] cap (entries kept), ARGV[5] dedupe lifetime ms
-- Returns {"ok", id} | {"dup", id} | {"rate_limited", ms until the window ends}
--       | {"no_table", ""} (the table left Redis, e.g. archived with its chat, since the
--         worker cached it: no chat key is made again behind the archiver)
local said = redis.call("GET", KEYS[3])
if said then
  return {"dup", said}
end
if redis.call("EXISTS", KEYS[4]) == 0 then
  return {"no_table", ""}
end
local count = redis.call("INCR", KEYS[2])
if count == 1 then
  redis.call("PEXPIRE", KEYS[2], ARGV[3])
end
if count > tonumber(ARGV[2]) then
  return {"rate_limited", tostring(redis.call("PTTL", KEYS[2]))}
end
local id = redis.call("XADD", KEYS[1], "MAXLEN", ARGV[4], "*", "__data__", ARGV[1])
redis.call("SET", KEYS[3], id, "PX", ARGV[5])
return {"ok", id}
