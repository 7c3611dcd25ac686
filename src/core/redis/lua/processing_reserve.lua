-- bqsuite reference transport, legacy :processing layout (broker-bindings §1.7): reserve.
-- KEYS: ready list, processing list, deadlines sorted set. ARGV: token (32 lowercase hex),
-- deadline (integer seconds, or +inf).
-- Moves the head of the ready list to the tail of the processing list byte for byte and
-- records the reservation as the member <token>:<raw> at the deadline.
-- Returns the raw body, or false when the ready list is empty.
local raw = redis.call('LMOVE', KEYS[1], KEYS[2], 'LEFT', 'RIGHT')
if not raw then
  return false
end
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1] .. ':' .. raw)
return raw
