-- bqsuite reference transport, zset layout (broker-bindings §1.1): release and dead-letter.
-- KEYS: reserved sorted set, target key. ARGV: reserved member, 'zadd' or 'rpush', payload,
-- and for 'zadd' the score.
-- The reservation gates the move: only when ZREM removed the member is the payload written
-- (to the delayed set at the score, or to the tail of the dead-letter list). A reservation
-- that is already gone (acknowledged, or recovered by a migrate) touches nothing.
-- Returns 1 when the move happened, 0 otherwise.
if redis.call('ZREM', KEYS[1], ARGV[1]) == 0 then
  return 0
end
if ARGV[2] == 'zadd' then
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
else
  redis.call('RPUSH', KEYS[2], ARGV[3])
end
return 1
