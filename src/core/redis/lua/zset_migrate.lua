-- bqsuite reference transport, zset layout (broker-bindings §1.1): migrate.
-- Moves every member of the sorted set KEYS[1] whose score is at most ARGV[1] (the current
-- second) to the tail of the ready list KEYS[2], lowest score first, in chunks of 100, and
-- appends one wake-up token to KEYS[3] for each member moved. Members move byte for byte.
-- Returns the number of members moved.
local moved = 0
while true do
  local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 100)
  if #due == 0 then
    return moved
  end
  redis.call('ZREM', KEYS[1], unpack(due))
  redis.call('RPUSH', KEYS[2], unpack(due))
  local tokens = {}
  for i = 1, #due do
    tokens[i] = '1'
  end
  redis.call('RPUSH', KEYS[3], unpack(tokens))
  moved = moved + #due
end
