"""The history cache is bounded by entries and by the contents they hold together."""

from pyadk import types
from pyadk.flows.processors.contents_cache import CachedHistory, HistoryCache


def _history(n: int) -> CachedHistory:
    return CachedHistory(count=n, contents=[types.Content(role="user") for _ in range(n)])


def test_least_recently_used_entries_go_when_contents_exceed_the_bound():
    cache = HistoryCache(max_entries=10, max_contents=5)
    cache.put("a", _history(2))
    cache.put("b", _history(2))
    assert cache.get("a") is not None  # "a" is now the most recent
    cache.put("c", _history(2))  # 6 contents > 5: the least recent ("b") goes
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None


def test_growth_in_place_is_accounted():
    cache = HistoryCache(max_entries=10, max_contents=5)
    a, b = _history(2), _history(2)
    cache.put("a", a)
    cache.put("b", b)
    b.contents.extend(types.Content(role="model") for _ in range(2))
    cache.grew("b", b)  # 6 contents: "a" goes, the growing one stays
    assert cache.get("a") is None
    assert cache.get("b") is b


def test_the_latest_entry_stays_even_when_alone_it_is_over_the_bound():
    cache = HistoryCache(max_entries=10, max_contents=3)
    cache.put("long", _history(50))
    assert cache.get("long") is not None
    cache.put("other", _history(1))
    assert cache.get("long") is None and cache.get("other") is not None


def test_entry_count_bound_still_applies():
    cache = HistoryCache(max_entries=2, max_contents=1_000)
    for key in "abc":
        cache.put(key, _history(1))
    assert cache.get("a") is None
    assert cache.get("b") is not None and cache.get("c") is not None
