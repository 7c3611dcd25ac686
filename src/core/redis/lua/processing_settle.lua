-- bqsuite reference transport, legacy :processing layout (broker-bindings §1.7): ack, release
-- and dead-letter.
-- KEYS: deadlines sorted set, processing list, and for release / dead-letter the list the
-- payload goes to. ARGV: the member <token>:<raw>, raw, and for release / dead-letter the
-- payload.
-- The gate: ZREM of the member first. Only when it removed the member does one copy of raw
-- (LREM count 1) leave the processing list and the payload go to the tail of the target list;
-- a stale token (the reservation was swept) touches nothing.
-- Returns 1 when the gate opened, 0 otherwise.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('LREM', KEYS[2], 1, ARGV[2])
if KEYS[3] then
  redis.call('RPUSH', KEYS[3], ARGV[3])
end
return 1
