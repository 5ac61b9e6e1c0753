local till = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if till > now then return {0, till - now} end
return {1, 0}
