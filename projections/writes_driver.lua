local n, m = tonumber(ARGV[1]), tonumber(ARGV[2])
local results = {}
local k, a = 0, 3 + 3 * n + m
local made = true
for i = 1, n do
  local t = 3 * i
  local kind, nk, na = tonumber(ARGV[t + 1]), tonumber(ARGV[t + 2]), tonumber(ARGV[t + 3])
  local wkeys, wargv = {}, {}
  for j = 1, nk do wkeys[j] = KEYS[k + j] end
  for j = 1, na do wargv[j] = ARGV[a + j] end
  k, a = k + nk, a + na
  local ok, result = pcall(SCRIPTS[kind], wkeys, wargv)
  -- (the views' script keeps its writes out of the AOF: one that failed midway must
  -- not leave the next write's out too)
  redis.set_repl(redis.REPL_ALL)
  if ok then
    results[i] = result
    if result == -1 then made = false end
  elseif type(result) == 'table' and result.err then
    results[i] = result
    made = false
  else
    results[i] = {err = tostring(result)}
    made = false
  end
end
results[n + 1] = 0
if m > 0 and made then
  redis.call('XACK', KEYS[#KEYS], ARGV[3], unpack(ARGV, 4 + 3 * n, 3 + 3 * n + m))
  results[n + 1] = 1
end
return results
