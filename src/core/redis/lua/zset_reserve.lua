-- bqsuite reference transport, zset layout (broker-bindings §1.1): reserve.
-- KEYS: ready list, reserved sorted set, notify list. ARGV[1]: the reservation deadline
-- (integer seconds, or +inf).
-- Pops the head of the ready list and one wake-up token. The reserved member is the body
-- re-encoded by cjson with attempts + 1, unless the A1 guard trips: a body cjson cannot
-- decode, that is not an object, whose attempts is not a number, or that cjson cannot encode
-- again (a non-finite number decodes but does not encode) is stored as it came.
-- Returns false when the list is empty, else {raw body, reserved member, poison (1 or 0)}.
local raw = redis.call('LPOP', KEYS[1])
if not raw then
  return false
end
redis.call('LPOP', KEYS[3])
local member, poison = raw, 1
local decoded, body = pcall(cjson.decode, raw)
if decoded and type(body) == 'table' and type(body.attempts) == 'number' then
  body.attempts = body.attempts + 1
  local encoded, text = pcall(cjson.encode, body)
  if encoded then
    member, poison = text, 0
  end
end
redis.call('ZADD', KEYS[2], ARGV[1], member)
return {raw, member, poison}
