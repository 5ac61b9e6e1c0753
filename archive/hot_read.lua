local meta = redis.call('HMGET', KEYS[1], 'seq', 'hash', 'phase')
if not meta[1] then return false end
local parts = {}
for _, row in ipairs(redis.call('XRANGE', KEYS[2], '-', meta[1] .. '-0')) do
  local entry = row[2][2]
  parts[#parts + 1] = struct.pack('>I4', #entry)
  parts[#parts + 1] = entry
end
local chat = redis.call('XRANGE', KEYS[3], '-', '+')
return {meta[1], meta[2] or '', meta[3] or '', table.concat(parts), chat}
