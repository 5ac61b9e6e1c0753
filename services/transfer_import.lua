-- KEYS: 1 meta, 2 log, 3 tables set, 4 feed, 5 seed, 6 tombstone, 7 ended tables
-- ARGV: 1 table id, 2 last seq, 3 last hash, 4 phase, 5 seed ('' if none), 6 feed maxlen,
--       7 '1': restoring an archived table (its tombstone goes), 8 now (unix ms),
--       9.. entries in seq order
if redis.call('EXISTS', KEYS[1]) == 1 or redis.call('EXISTS', KEYS[2]) == 1 then
  return 'exists'
end
if redis.call('EXISTS', KEYS[6]) == 1 then
  if ARGV[7] ~= '1' then return 'archived' end
  redis.call('DEL', KEYS[6])
end
for i = 9, #ARGV do
  redis.call('XADD', KEYS[2], tostring(i - 8) .. '-0', 'e', ARGV[i])
end
redis.call('HSET', KEYS[1], 'seq', ARGV[2], 'hash', ARGV[3], 'phase', ARGV[4])
redis.call('SADD', KEYS[3], ARGV[1])
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[5], ARGV[5])
end
if ARGV[4] == 'finished' or ARGV[4] == 'closed' then
  -- archived again once due (from now: an imported table is kept for the grace period)
  redis.call('ZADD', KEYS[7], 'NX', ARGV[8], ARGV[1])
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[6], '*', '__data__',
  '{"table":"' .. ARGV[1] .. '","from":1,"to":' .. ARGV[2] .. '}')
return 'ok'
