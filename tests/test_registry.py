"""The extractor registry: built-ins, register(), entry points, one instance per process."""

from __future__ import annotations

import sys
import threading
import time
import types
from importlib.metadata import EntryPoint

import pytest

import scrapy_boilerplate.core.registry as registry
from scrapy_boilerplate import (
    CONTENT,
    Block,
    Extraction,
    Extractor,
    InvalidParameter,
    UnknownExtractor,
    available,
    extract,
    register,
)
from scrapy_boilerplate.core.params import Param
from scrapy_boilerplate.extractors.justext import JustextExtractor

HTML = "<html><body><p>short</p><p>a somewhat longer block</p></body></html>"


@pytest.fixture(autouse=True)
def clean_registry():
    """Every test leaves the registry as it found it."""
    classes = dict(registry._classes)
    instances = dict(registry._instances)
    loaded = registry._entry_points_loaded
    yield
    registry._classes.clear()
    registry._classes.update(classes)
    registry._instances.clear()
    registry._instances.update(instances)
    registry._entry_points_loaded = loaded


class LongBlocks(Extractor):
    """Content = jusText blocks longer than ``min_length`` characters."""

    name = "mine"
    params = (Param("min_length", int, 10, "shortest content block", 0),)
    made = 0

    def __init__(self) -> None:
        type(self).made += 1

    def extract(self, doc, params):
        blocks = [
            Block(
                text=b.text,
                xpath=b.xpath,
                tag=b.tag,
                index=b.index,
                start=b.start,
                label=CONTENT if len(b.text) > params["min_length"] else "boilerplate",
            )
            for b in doc.justext_blocks()
        ]
        return Extraction.from_blocks(blocks, self.name, params)


def test_builtins_are_available():
    names = available()
    assert "justext" in names and "cnr" in names
    assert names == sorted(names)


def test_register_a_class():
    register("mine", LongBlocks)
    assert "mine" in available()
    r = extract(HTML, "mine")
    assert (r.extractor, r.main_text) == ("mine", "a somewhat longer block")
    assert extract(HTML, "mine", min_length=1).main_text == "short\n\na somewhat longer block"
    assert r.params == {"min_length": 10}


def test_registered_extractor_parameters_are_validated():
    register("mine", LongBlocks)
    with pytest.raises(InvalidParameter) as info:
        extract(HTML, "mine", min_length=-1)
    assert info.value.name == "min_length"
    with pytest.raises(InvalidParameter) as info:
        extract(HTML, "mine", length_low=3)  # a jusText parameter, not this method's
    assert info.value.name == "length_low"


def test_registered_extractor_gets_bad_input_handled_for_it():
    register("mine", LongBlocks)
    r = extract(b"\x89PNG\r\n\x1a\n\x00", "mine")
    assert (r.reason, r.extractor, r.main_text) == ("binary", "mine", "")


def test_register_a_dotted_path():
    register("jt2", "scrapy_boilerplate.extractors.justext:JustextExtractor")
    inst = registry.get("jt2")
    assert isinstance(inst, JustextExtractor)
    assert inst is not registry.get("justext")
    assert extract(HTML, "jt2").params == extract(HTML, "justext").params


def test_register_again_replaces_the_instance():
    register("mine", LongBlocks)
    first = registry.get("mine")
    register("mine", LongBlocks)
    assert registry.get("mine") is not first


def test_register_overrides_a_builtin_name():
    register("justext", LongBlocks)
    assert extract(HTML, "justext").extractor == "mine"


def fake_entry_points(*eps: EntryPoint):
    def entry_points(group=None):
        return [ep for ep in eps if ep.group == group]

    return entry_points


def test_entry_point_is_discovered(monkeypatch):
    plugin = types.ModuleType("sb_fake_plugin")
    plugin.LongBlocks = LongBlocks
    monkeypatch.setitem(sys.modules, "sb_fake_plugin", plugin)
    monkeypatch.setattr(
        registry,
        "entry_points",
        fake_entry_points(
            EntryPoint("plugged", "sb_fake_plugin:LongBlocks", registry.ENTRY_POINT_GROUP),
            EntryPoint("other_group", "sb_fake_plugin:LongBlocks", "some.other.group"),
        ),
    )
    registry._entry_points_loaded = False
    assert "plugged" in available()
    assert "other_group" not in available()
    assert extract(HTML, "plugged").main_text == "a somewhat longer block"
    assert isinstance(registry.get("plugged"), LongBlocks)


def test_entry_point_found_by_get_without_available(monkeypatch):
    plugin = types.ModuleType("sb_fake_plugin")
    plugin.LongBlocks = LongBlocks
    monkeypatch.setitem(sys.modules, "sb_fake_plugin", plugin)
    monkeypatch.setattr(
        registry,
        "entry_points",
        fake_entry_points(
            EntryPoint("plugged", "sb_fake_plugin:LongBlocks", registry.ENTRY_POINT_GROUP)
        ),
    )
    registry._entry_points_loaded = False
    assert isinstance(registry.get("plugged"), LongBlocks)


def test_entry_point_does_not_replace_a_builtin(monkeypatch):
    plugin = types.ModuleType("sb_fake_plugin")
    plugin.LongBlocks = LongBlocks
    monkeypatch.setitem(sys.modules, "sb_fake_plugin", plugin)
    monkeypatch.setattr(
        registry,
        "entry_points",
        fake_entry_points(
            EntryPoint("justext", "sb_fake_plugin:LongBlocks", registry.ENTRY_POINT_GROUP)
        ),
    )
    registry._entry_points_loaded = False
    registry._instances.pop("justext", None)
    assert isinstance(registry.get("justext"), JustextExtractor)


def test_entry_points_are_read_once(monkeypatch):
    calls = []

    def entry_points(group=None):
        calls.append(group)
        return []

    monkeypatch.setattr(registry, "entry_points", entry_points)
    registry._entry_points_loaded = False
    available()
    available()
    with pytest.raises(UnknownExtractor):
        registry.get("nope")
    assert calls == [registry.ENTRY_POINT_GROUP]


def test_package_metadata_declares_the_builtins_as_entry_points():
    from importlib.metadata import entry_points

    names = {ep.name for ep in entry_points(group=registry.ENTRY_POINT_GROUP)}
    if not names:
        pytest.skip("package metadata not installed")
    assert {"justext", "cnr"} <= names


def test_unknown_extractor_names_the_available_ones():
    with pytest.raises(UnknownExtractor) as info:
        extract(HTML, "readability-js")
    err = info.value
    assert err.name == "readability-js"
    assert "justext" in err.available and "cnr" in err.available
    assert "'readability-js'" in str(err)
    assert "justext" in str(err) and "cnr" in str(err)
    assert isinstance(err, LookupError)


def test_unknown_extractor_lists_registered_ones_too():
    register("mine", LongBlocks)
    with pytest.raises(UnknownExtractor) as info:
        registry.get("yours")
    assert "mine" in info.value.available


def test_one_instance_per_process():
    assert registry.get("justext") is registry.get("justext")
    if "cnr" in available():
        assert registry.get("cnr") is registry.get("cnr")


def test_one_instance_even_when_threads_race():
    class Slow(LongBlocks):
        made = 0

        def __init__(self) -> None:
            time.sleep(0.05)  # widen the window in which the other threads call get()
            super().__init__()

    register("slow", Slow)
    got, start = [], threading.Barrier(8)

    def worker():
        start.wait()
        got.append(registry.get("slow"))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(got) == 8
    assert all(inst is got[0] for inst in got)
    assert Slow.made == 1
