-- bqsuite reference transport, legacy :processing layout (broker-bindings §1.7): sweep.
-- KEYS: deadlines sorted set, processing list, ready list. ARGV[1]: the current second.
-- Every member whose deadline is at most ARGV[1] is removed, in chunks of 100. A member that
-- is not <32 lowercase hex>:<raw> is only removed. Otherwise one copy of raw (LREM count 1)
-- leaves the processing list and goes to the tail of the ready list byte for byte; when no
-- copy is left (an orphan) the member is only removed.
-- Returns {moved, orphaned, malformed}.
local token = '^' .. string.rep('[0-9a-f]', 32) .. ':'
local moved, orphaned, malformed = 0, 0, 0
while true do
  local expired = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 100)
  if #expired == 0 then
    return {moved, orphaned, malformed}
  end
  for _, member in ipairs(expired) do
    redis.call('ZREM', KEYS[1], member)
    if not string.find(member, token) then
      malformed = malformed + 1
    else
      local raw = string.sub(member, 34)
      if redis.call('LREM', KEYS[2], 1, raw) == 1 then
        redis.call('RPUSH', KEYS[3], raw)
        moved = moved + 1
      else
        orphaned = orphaned + 1
      end
    end
  end
end
