"""The models' caches keep what was read across reruns and forget the least recently used."""

from jeval_core.judges.lru import Lru


def test_the_least_recently_used_entry_is_forgotten_first():
    cache: Lru[str] = Lru(2)
    for key in (b"a", b"b"):
        cache.put(key, key.decode())
    assert cache.take([b"a"]) == ["a"]  # a is now the most recent
    cache.put(b"c", "c")
    cache.take([b"c"])
    assert b"a" in cache and b"c" in cache and b"b" not in cache


def test_one_read_larger_than_the_cache_still_returns_every_value():
    cache: Lru[int] = Lru(2)
    keys = [bytes([i]) for i in range(5)]
    for i, key in enumerate(keys):
        cache.put(key, i)
    assert cache.take(keys) == [0, 1, 2, 3, 4]
    assert len(cache) == 2


def test_missing_names_each_absent_key_once_in_order():
    cache: Lru[int] = Lru(4)
    cache.put(b"x", 1)
    assert cache.missing([b"y", b"x", b"z", b"y"]) == [b"y", b"z"]
