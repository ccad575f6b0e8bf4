"""The models' caches: what was already read, kept across reruns, never past a size.

An edit in the Playground re-reads only the texts (embedder) or pairs (reader) it changed;
everything else comes from here. The least recently used entry goes first.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Generic, TypeVar

V = TypeVar("V")


class Lru(Generic[V]):
    """A bounded map from a text's key to what the model made of it (not thread-safe: its
    owner holds a lock around a read)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[bytes, V] = OrderedDict()

    def __contains__(self, key: bytes) -> bool:
        return key in self._items

    def __len__(self) -> int:
        return len(self._items)

    def missing(self, keys: Iterable[bytes]) -> list[bytes]:
        """The keys not held, each once, in the order given."""
        return [k for k in dict.fromkeys(keys) if k not in self._items]

    def put(self, key: bytes, value: V) -> None:
        self._items[key] = value

    def take(self, keys: Sequence[bytes]) -> list[V]:
        """The values of `keys` (all held), marked as just used; then the oldest entries
        beyond the size are forgotten (after, so one call larger than the size still
        returns every value)."""
        found = []
        for k in keys:
            self._items.move_to_end(k)
            found.append(self._items[k])
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return found
