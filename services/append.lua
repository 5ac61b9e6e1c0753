-- Atomic append of one command's events to a table's log (all keys share one hash tag).
-- KEYS: 1 meta hash, 2 log stream, 3 outcomes hash, 4 partition feed, 5 partition tables set,
--       6 partition's ended tables (the archiver's queue),
--       optionally 7 the partition's command stream (the settle)
-- ARGV: 1 command id, 2 expected seq, 3 expected head hash, 4 the stored outcome (its
--       digest and bytes, services/store.py outcome_record), 5 table id, 6 table phase
--       after the append, 7 feed max length, 8 recorded-at time (unix ms),
--       9 the command entry's id, 10 its consumer group, 11 the client's reply stream
--       ('': none), 12 the reply's bytes, 13 reply stream max length, 14 reply stream
--       TTL (s) (9-14 read only with KEYS 7),
--       then for each event: its hash, its entry bytes
-- On a cluster the answer is given only to a reply stream in the table's slot (tagged with
-- its partition, services/store.py EventStore.answers); for any other, ARGV 11 is '' and
-- the caller answers after the ack.
-- It is not declared in KEYS because a declared key needs read access too, and a worker
-- may only write reply streams (deploy/valkey/users.acl.template: %W~orrery:reply:*).
-- Returns {"dup", stored outcome, the digest field of one stored without it}
--       | {"conflict", seq, head}
--       | {"ok", last seq, settled: 0 no | 1 answered and acked | 2 acked, reply refused}
local stored = redis.call('HGET', KEYS[3], ARGV[1])
if stored then
  return {'dup', stored, redis.call('HGET', KEYS[3], ARGV[1] .. ':digest') or ''}
end
local seq = tonumber(redis.call('HGET', KEYS[1], 'seq') or '0')
local head = redis.call('HGET', KEYS[1], 'hash') or ''
if seq ~= tonumber(ARGV[2]) or (seq > 0 and head ~= ARGV[3]) then
  return {'conflict', tostring(seq), head}
end
local first = seq + 1
local last_hash = head
for i = 15, #ARGV, 2 do
  seq = seq + 1
  redis.call('XADD', KEYS[2], tostring(seq) .. '-0', 'e', ARGV[i + 1])
  last_hash = ARGV[i]
end
redis.call('HSET', KEYS[1], 'seq', seq, 'hash', last_hash, 'phase', ARGV[6])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
redis.call('SADD', KEYS[5], ARGV[5])
if ARGV[6] == 'finished' or ARGV[6] == 'closed' then
  redis.call('ZADD', KEYS[6], 'NX', ARGV[8], ARGV[5])
end
-- table ids are restricted to [A-Za-z0-9_.:-], so this is valid JSON
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[7], '*', '__data__',
  '{"table":"' .. ARGV[5] .. '","from":' .. first .. ',"to":' .. seq .. '}')
local settled = 0
if KEYS[7] then
  -- The answer, then the acknowledgement, with the append: no crash can come between.
  settled = 1
  if ARGV[11] ~= '' then
    -- pcall: a reply key a client made something else must not undo the append; the
    -- caller dead-letters the entry (its outcome stays stored for a retry).
    local sent = redis.pcall('XADD', ARGV[11], 'MAXLEN', '~', ARGV[13], '*', '__data__', ARGV[12])
    if type(sent) == 'table' and sent.err then
      settled = 2
    else
      redis.call('EXPIRE', ARGV[11], ARGV[14])
    end
  end
  redis.call('XACK', KEYS[7], ARGV[10], ARGV[9])
  redis.call('XDEL', KEYS[7], ARGV[9])
end
return {'ok', tostring(seq), settled}
