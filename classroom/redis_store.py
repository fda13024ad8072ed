"""The Redis backend of the class store: for replicas on several hosts (``POSENC_CLASS_STORE=redis://host:6379/0``).

A question is one hash (its round, whether revealed, its choices and settings, and a counter per round and choice),
so a live view's poll is one ``HGETALL`` (with the class's expiry in the same round trip). Every write that must
check before it changes (an answer, opening a question, a new round) is a Lua script, which Redis runs atomically:
two tabs of one browser cannot both count. Every key of a class expires with the class (``EXPIREAT``); ending a
class deletes them all (each class lists its keys in a set). The teacher's view, its number and the lesson are
fields of the class's own hash (a student's poll is one ``HMGET``); heartbeats are one sorted set per mode, scored
by time.
"""

from __future__ import annotations

import json

import redis

from classroom.store import MODES, ClassInfo, Poll

PREFIX = "posenc:class:"
TIMEOUT = 2.0  # seconds: a server that does not answer is an error the service reports, not a hung page

_CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', ARGV[5])
if redis.call('EXISTS', KEYS[1]) == 1 then return 'taken' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[6]) then return 'teacher_full' end
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[7]) then return 'store_full' end
local at = math.ceil(tonumber(ARGV[4]))
redis.call('HSET', KEYS[1], 'secret_hash', ARGV[2], 'teacher', ARGV[3], 'expires', ARGV[4], 'polls', 0)
redis.call('EXPIREAT', KEYS[1], at)
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1])
redis.call('EXPIREAT', KEYS[2], at)
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[1])
return 'ok'
"""

_OPEN = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[5]) then return 'gone' end
local at = math.ceil(tonumber(expires))
if redis.call('EXISTS', KEYS[2]) == 0 then
  if tonumber(redis.call('HGET', KEYS[1], 'polls')) >= tonumber(ARGV[6]) then return 'full' end
  redis.call('HINCRBY', KEYS[1], 'polls', 1)
  redis.call('HSET', KEYS[2], 'round', 1, 'revealed', 0, 'choices', ARGV[3], 'settings', ARGV[4])
  redis.call('EXPIREAT', KEYS[2], at)
  redis.call('SADD', KEYS[5], KEYS[2], KEYS[3], KEYS[4])
  redis.call('EXPIREAT', KEYS[5], at)
end
redis.call('HSET', KEYS[4], ARGV[1], ARGV[2])
redis.call('EXPIREAT', KEYS[4], at)
return 'ok'
"""

_ANSWER = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[4]) then return 'closed' end
local poll = redis.call('HMGET', KEYS[2], 'round', 'revealed')
if not poll[1] or poll[1] ~= ARGV[1] or poll[2] == '1' then return 'closed' end
local field = ARGV[1] .. ':' .. ARGV[2]
local before = redis.call('HGET', KEYS[3], field)
if not before then
  redis.call('HSET', KEYS[3], field, '0:' .. ARGV[3])
  redis.call('EXPIREAT', KEYS[3], math.ceil(tonumber(expires)))
  redis.call('HINCRBY', KEYS[2], 'n:' .. ARGV[1] .. ':' .. ARGV[3], 1)
  return 'counted'
end
local sep = string.find(before, ':', 1, true)
local changes = tonumber(string.sub(before, 1, sep - 1))
local old = string.sub(before, sep + 1)
if old == ARGV[3] then return 'changed' end
if changes >= tonumber(ARGV[5]) then return 'too_many' end
redis.call('HSET', KEYS[3], field, (changes + 1) .. ':' .. ARGV[3])
redis.call('HINCRBY', KEYS[2], 'n:' .. ARGV[1] .. ':' .. old, -1)
redis.call('HINCRBY', KEYS[2], 'n:' .. ARGV[1] .. ':' .. ARGV[3], 1)
return 'changed'
"""

_REVEAL = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[1]) then return 0 end
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'revealed', 1)
return 1
"""

_NEXT = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[1]) then return 0 end
local round = tonumber(redis.call('HGET', KEYS[2], 'round'))
if not round or round >= tonumber(ARGV[2]) or round ~= tonumber(ARGV[3]) then return 0 end
redis.call('HSET', KEYS[2], 'round', round + 1, 'revealed', 0)
return round + 1
"""

_END = """
local teacher = redis.call('HGET', KEYS[1], 'teacher')
for _, key in ipairs(redis.call('SMEMBERS', KEYS[2])) do redis.call('DEL', key) end
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[1])
if teacher then redis.call('ZREM', ARGV[2] .. teacher, ARGV[1]) end
return 1
"""


_SET_VIEW = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'view', ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'view_seq', 1)
"""

_SET_LESSON = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'lesson', ARGV[1])
return 1
"""

_BEAT = """
local expires = redis.call('HGET', KEYS[1], 'expires')
if not expires or tonumber(expires) <= tonumber(ARGV[3]) then return 0 end
local mine, known, count = KEYS[3], false, 0
for i = 3, #KEYS do
  redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', tonumber(ARGV[3]) - tonumber(ARGV[4]))
  if redis.call('ZSCORE', KEYS[i], ARGV[1]) then known = true end
  count = count + redis.call('ZCARD', KEYS[i])
  if KEYS[i] == ARGV[2] then mine = KEYS[i] end
end
if not known and count >= tonumber(ARGV[5]) then return 0 end
local at = math.ceil(tonumber(expires))
for i = 3, #KEYS do
  if KEYS[i] ~= mine then redis.call('ZREM', KEYS[i], ARGV[1]) end
end
redis.call('ZADD', mine, ARGV[3], ARGV[1])
redis.call('EXPIREAT', mine, at)
redis.call('SADD', KEYS[2], mine)
redis.call('EXPIREAT', KEYS[2], at)
return 1
"""


class RedisStore:
    def __init__(self, url: str):
        self.client = redis.Redis.from_url(url, decode_responses=True, socket_timeout=TIMEOUT,
                                           socket_connect_timeout=TIMEOUT)  # fmt: skip
        scripts = (_CREATE, _OPEN, _ANSWER, _REVEAL, _NEXT, _END, _SET_VIEW, _SET_LESSON, _BEAT)
        (self._create, self._open, self._answer, self._reveal, self._next, self._end, self._set_view,
         self._set_lesson, self._beat) = (self.client.register_script(script) for script in scripts)  # fmt: skip

    @staticmethod
    def _class(code: str) -> str:
        return f"{PREFIX}{code}"

    def _poll_keys(self, code: str, checkpoint: str, asked: str) -> tuple[str, str]:
        base = f"{PREFIX}{code}:{checkpoint}:{asked}"
        return f"{base}:poll", f"{base}:answers"

    def create_class(self, info: ClassInfo, now: float, max_per_teacher: int, max_classes: int) -> str:
        keys = [self._class(info.code), f"{PREFIX}teacher:{info.teacher}", f"{PREFIX}all"]
        args = [info.code, info.secret_hash, info.teacher, repr(info.expires), repr(now), max_per_teacher, max_classes]
        return self._create(keys=keys, args=args)

    def class_info(self, code: str, now: float) -> ClassInfo | None:
        fields = self.client.hgetall(self._class(code))
        if not fields or float(fields["expires"]) <= now:
            return None
        return ClassInfo(code, fields["secret_hash"], fields["teacher"], float(fields["expires"]))

    def open_poll(self, code, checkpoint, asked, choices, settings, now, max_polls) -> str:
        poll_key, answers_key = self._poll_keys(code, checkpoint, asked)
        keys = [self._class(code), poll_key, answers_key, f"{PREFIX}{code}:current", f"{PREFIX}{code}:keys"]
        args = [checkpoint, asked, json.dumps(list(choices)), json.dumps(settings), repr(now), max_polls]
        return self._open(keys=keys, args=args)

    def poll(self, code, checkpoint, asked, now) -> Poll | None:
        pipe = self.client.pipeline(transaction=False)
        pipe.hget(self._class(code), "expires")
        pipe.hgetall(self._poll_keys(code, checkpoint, asked)[0])
        expires, fields = pipe.execute()
        if expires is None or float(expires) <= now or not fields:
            return None
        counts: dict[int, dict[str, int]] = {}
        for name, value in fields.items():
            if name.startswith("n:") and int(value) > 0:
                _, round_, choice = name.split(":", 2)
                counts.setdefault(int(round_), {})[choice] = int(value)
        return Poll(checkpoint, asked, int(fields["round"]), fields["revealed"] == "1",
                    tuple(json.loads(fields["choices"])), json.loads(fields["settings"]), counts)  # fmt: skip

    def current_poll(self, code, checkpoint, now) -> Poll | None:
        asked = self.client.hget(f"{PREFIX}{code}:current", checkpoint)
        return self.poll(code, checkpoint, asked, now) if asked else None

    def answer(self, code, checkpoint, asked, round_, browser, choice, now, max_changes) -> str:
        poll_key, answers_key = self._poll_keys(code, checkpoint, asked)
        return self._answer(keys=[self._class(code), poll_key, answers_key],
                            args=[round_, browser, choice, repr(now), max_changes])  # fmt: skip

    def reveal(self, code, checkpoint, asked, now) -> bool:
        poll_key = self._poll_keys(code, checkpoint, asked)[0]
        return bool(self._reveal(keys=[self._class(code), poll_key], args=[repr(now)]))

    def next_round(self, code, checkpoint, asked, now, max_rounds, after) -> int | None:
        poll_key = self._poll_keys(code, checkpoint, asked)[0]
        return int(self._next(keys=[self._class(code), poll_key], args=[repr(now), max_rounds, after])) or None

    def set_view(self, code, view, now) -> int | None:
        return int(self._set_view(keys=[self._class(code)], args=[view, repr(now)])) or None

    def view(self, code, now) -> tuple[int, str | None] | None:
        expires, seq, view = self.client.hmget(self._class(code), "expires", "view_seq", "view")
        if expires is None or float(expires) <= now:
            return None
        return int(seq or 0), view

    def set_lesson(self, code, lesson, now) -> bool:
        return bool(self._set_lesson(keys=[self._class(code)], args=[lesson, repr(now)]))

    def lesson(self, code, now) -> str | None:
        expires, lesson = self.client.hmget(self._class(code), "expires", "lesson")
        return lesson if expires is not None and float(expires) > now else None

    def _beat_keys(self, code: str, modes) -> list[str]:
        return [f"{PREFIX}{code}:beats:{mode}" for mode in modes]

    def beat(self, code, browser, mode, now, ttl, max_browsers) -> bool:
        keys = [self._class(code), f"{PREFIX}{code}:keys", *self._beat_keys(code, MODES)]
        mine = self._beat_keys(code, [mode])[0]
        return bool(self._beat(keys=keys, args=[browser, mine, repr(now), ttl, max_browsers]))

    def modes(self, code, now, ttl) -> dict[str, int]:
        pipe = self.client.pipeline(transaction=False)
        for key in self._beat_keys(code, MODES):
            pipe.zcount(key, f"({now - ttl!r}", "+inf")
        return {mode: int(n) for mode, n in zip(MODES, pipe.execute(), strict=True) if int(n)}

    def end(self, code: str) -> None:
        keys = [self._class(code), f"{PREFIX}{code}:keys", f"{PREFIX}all"]
        self._end(keys=keys, args=[code, f"{PREFIX}teacher:"])

    def purge(self, now: float) -> int:
        return 0  # every key carries its class's EXPIREAT

    def close(self) -> None:
        self.client.close()
