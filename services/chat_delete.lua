-- An operator deletes a chat message (services/chat.py): the entry goes, a deletion
-- entry takes its news to live clients and its place in the history.
-- KEYS[1] chat stream; ARGV[1] message id, ARGV[2] deletion JSON, ARGV[3] cap
-- Returns 1 when the message was there, 0 otherwise.
local found = redis.call("XRANGE", KEYS[1], ARGV[1], ARGV[1])
if #found == 0 then
  return 0
end
local data = nil
for i = 1, #found[1][2], 2 do
  if found[1][2][i] == "__data__" then data = found[1][2][i + 1] end
end
if data and string.find(data, '"deleted"', 1, true) then
  return 0  -- a deletion entry itself
end
redis.call("XDEL", KEYS[1], ARGV[1])
redis.call("XADD", KEYS[1], "MAXLEN", ARGV[3], "*", "__data__", ARGV[2])
return 1
