"""Request meta is untrusted (it may come from a shared queue): ``meta["boilerplate"]`` may
choose registered methods and parameter values, never import a module or name a local file
the settings did not allow, and whatever it holds, the item is kept with reason
``invalid-meta`` (docs/security/meta.md)."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_f_from_coro_f

from scrapy_boilerplate.core import params as params_module
from scrapy_boilerplate.core import registry
from scrapy_boilerplate.core.errors import InvalidParameter
from scrapy_boilerplate.core.params import Param, validate
from scrapy_boilerplate.core.registry import Extractor
from scrapy_boilerplate.extractors.web2text import model as w2t_model
from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config
from scrapy_helpers import PAGES, boilerplate_stats, crawl

ARTICLE_URL = (PAGES / "news_article.html").as_uri()
SNAPSHOT = PAGES / "article.snapshot.json"


def _refusal(config: Config, meta: dict[str, Any]) -> str:
    with pytest.raises(InvalidParameter) as err:
        config.for_request({"boilerplate": meta})
    return str(err.value)


# ---------------------------------------------------------------------------------------------
# The method: registered names only, never an import from meta


@pytest.fixture
def marking_module(tmp_path, monkeypatch):
    """A real module on sys.path whose import leaves a mark file."""
    mark = tmp_path / "imported.mark"
    (tmp_path / "meta_marking_mod.py").write_text(
        f"import pathlib\npathlib.Path({str(mark)!r}).write_text('ran')\n"
        "from scrapy_boilerplate.core.registry import Extractor\n"
        "class Method(Extractor):\n    name = 'marking'\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    yield mark
    sys.modules.pop("meta_marking_mod", None)
    registry.unregister("meta_marking_mod:Method")


@pytest.mark.parametrize("name", ["meta_marking_mod:Method", "meta_marking_mod.Method"])
def test_meta_never_imports_a_module(marking_module, name):
    message = _refusal(Config(), {"extractor": name})
    assert "registered" in message and "BOILERPLATE_EXTRACTOR" in message
    assert not marking_module.exists()
    assert "meta_marking_mod" not in sys.modules


def test_meta_may_name_what_the_settings_resolved_or_registered(marking_module):
    config = Config.from_settings(Settings({"BOILERPLATE_EXTRACTOR": "meta_marking_mod:Method"}))
    assert marking_module.exists()  # the project owner's setting: imported at start
    assert config.for_request({"boilerplate": {"extractor": "cnr"}})[0] == "cnr"
    other = Config()  # another crawl of the process: the setting registered it
    assert other.for_request({"boilerplate": {"extractor": "meta_marking_mod:Method"}})[0] == (
        "meta_marking_mod:Method"
    )
    registry.register("mine", "meta_marking_mod:Method")
    try:
        assert Config().for_request({"boilerplate": {"extractor": "mine"}})[0] == "mine"
    finally:
        registry.unregister("mine")


@pytest.mark.parametrize("name", ["nope", 3, ["cnr"], "x" * 10_000])
def test_an_unknown_or_odd_method_from_meta_is_refused_briefly(name):
    message = _refusal(Config(), {"extractor": name})
    assert len(message) < 400


# ---------------------------------------------------------------------------------------------
# Files: from meta, only keywords and shipped models, or files BOILERPLATE_META_FILES lists


@pytest.mark.parametrize(
    ("method", "param"), [("vips", "layout"), ("web2text", "model")], ids=["layout", "model"]
)
def test_a_path_from_meta_is_refused_the_same_whether_the_file_exists(tmp_path, method, param):
    present = tmp_path / "present.json"
    present.write_text("{}")
    absent = tmp_path / "absent.json"
    config = Config()
    said = {
        str(path): _refusal(config, {"extractor": method, "params": {param: str(path)}})
        for path in (present, absent, "/etc/passwd", "/proc/self/environ")
    }
    assert len({text.replace(path, "P") for path, text in said.items()}) == 1
    assert "BOILERPLATE_META_FILES" in said[str(present)]


def test_keywords_and_shipped_models_are_allowed_from_meta():
    config = Config()
    for layout in ("auto", "static", "rendered"):
        assert config.for_request(
            {"boilerplate": {"extractor": "vips", "params": {"layout": layout}}}
        )
    for model in ("cleaneval", "web2text", None):
        _, checked = config.for_request(
            {"boilerplate": {"extractor": "web2text", "params": {"model": model}}}
        )
        assert checked["model"] == model
    # A bare word that is no shipped model would be a file of the working directory.
    _refusal(config, {"extractor": "web2text", "params": {"model": "passwd"}})


def test_settings_may_name_any_file_and_list_files_for_meta(tmp_path):
    settings = Settings(
        {
            "BOILERPLATE_EXTRACTOR": "vips",
            "BOILERPLATE_PARAMS": {"layout": str(SNAPSHOT)},
            "BOILERPLATE_META_FILES": [str(SNAPSHOT)],
        }
    )
    config = Config.from_settings(settings)
    assert config.params["layout"] == str(SNAPSHOT)
    assert config.meta_files == frozenset({str(SNAPSHOT)})
    # The listed file, however spelled, is what is used: the listed path itself.
    spelled = str(SNAPSHOT.parent / ".." / SNAPSHOT.parent.name / SNAPSHOT.name)
    _, checked = config.for_request({"boilerplate": {"params": {"layout": spelled}}})
    assert checked["layout"] == str(SNAPSHOT)
    _refusal(config, {"params": {"layout": str(tmp_path / "other.json")}})
    assert Config.from_settings(
        Settings({"BOILERPLATE_META_FILES": f"{SNAPSHOT},{tmp_path / 'b.json'}"})
    ).meta_files == {str(SNAPSHOT), str(tmp_path / "b.json")}
    for bad in ({"a": 1}, [3], [""], 5):
        with pytest.raises(BoilerplateSettingsError, match="BOILERPLATE_META_FILES"):
            Config.from_settings(Settings({"BOILERPLATE_META_FILES": bad}))


class _CountingSession:
    """Counts onnxruntime sessions made (a model load)."""

    def __init__(self, monkeypatch):
        import onnxruntime

        self.calls = 0
        real = onnxruntime.InferenceSession

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(onnxruntime, "InferenceSession", counting)


def test_a_model_never_loads_where_meta_is_read(tmp_path, monkeypatch):
    copy = tmp_path / "allowed.onnx"
    copy.write_bytes(w2t_model.DEFAULT_MODEL.read_bytes())
    sessions = _CountingSession(monkeypatch)
    config = Config(meta_files=frozenset({str(copy)}))
    meta = {"boilerplate": {"extractor": "web2text", "params": {"model": str(copy)}}}
    assert config.for_request(meta)[1]["model"] == str(copy)
    assert sessions.calls == 0  # loaded where the page is extracted, not on the reactor
    assert w2t_model.load_model(copy).path == copy
    assert sessions.calls == 1


def test_a_model_that_failed_to_load_is_not_loaded_again(tmp_path, monkeypatch):
    bad = tmp_path / "corrupt.onnx"
    bad.write_bytes(b"not an onnx model" * 10)
    sessions = _CountingSession(monkeypatch)
    messages = set()
    for _ in range(3):
        with pytest.raises(w2t_model.ModelError) as err:
            w2t_model.load_model(bad)
        messages.add(str(err.value))
    config = Config(meta_files=frozenset({str(bad)}))
    with pytest.raises(w2t_model.ModelError):
        config.for_request(
            {"boilerplate": {"extractor": "web2text", "params": {"model": str(bad)}}}
        )
    assert sessions.calls == 1 and len(messages) == 1 and str(bad) in messages.pop()
    bad.write_bytes(w2t_model.DEFAULT_MODEL.read_bytes())  # fixed: loads again
    assert w2t_model.load_model(bad).path == bad


# ---------------------------------------------------------------------------------------------
# Values that break conversion are InvalidParameter, naming the parameter


@pytest.mark.parametrize(
    ("given", "name"),
    [
        ({"x": 10**400}, "x"),  # float(): OverflowError
        ({"n": float("inf")}, "n"),  # int(): OverflowError (JSON's Infinity)
        ({1: 2, "a": 3}, None),  # sorting mixed keys: TypeError
        ({1: 2}, "1"),
    ],
)
def test_any_conversion_error_is_invalid_parameter(given, name):
    spec = [Param("x", float, 0.5), Param("n", int, 3)]
    with pytest.raises(InvalidParameter) as err:
        validate(spec, given, "m")
    if name is not None:
        assert err.value.name == name


def test_messages_cut_untrusted_values():
    with pytest.raises(InvalidParameter) as err:
        validate([Param("x", float, 0.5)], {"x": "z" * 100_000})
    assert len(str(err.value)) < 300
    assert params_module.check_untrusted(
        [Param("f", str, "a", path=True, keywords=("a",))], {"f": "a", "other": 1}
    ) == {"f": "a", "other": 1}


# ---------------------------------------------------------------------------------------------
# A crawl: every hostile meta keeps its item, with reason invalid-meta and why


class _ExplodingExtractor(Extractor):
    """Its validation raises something no one planned for."""

    name = "exploding"

    def validate(self, params: dict[str, Any] | None) -> dict[str, Any]:
        raise ZeroDivisionError("a bug in a method's validation")


@deferred_f_from_coro_f
async def test_a_crawl_keeps_every_item_of_a_hostile_meta(marking_module):
    hostile: list[Any] = [
        {"extractor": "meta_marking_mod:Method"},
        {"extractor": "vips", "params": {"layout": str(SNAPSHOT)}},
        {"extractor": "vips", "params": {"layout": "/etc/passwd"}},
        {"extractor": "web2text", "params": {"model": str(w2t_model.DEFAULT_MODEL)}},
        {"params": {"stopwords_low": 10**400}},
        {"params": {"length_low": float("inf")}},
        {"params": {1: 2, "a": 3}},
        {1: 2, "extractor": 3},
        {"extractor": "exploding"},
    ]
    metas = {f"{ARTICLE_URL}#m{i}": {"boilerplate": m} for i, m in enumerate(hostile)}
    registry.register("exploding", _ExplodingExtractor)
    try:
        items, stats, seen = await crawl(urls=list(metas), metas=metas)
    finally:
        registry.unregister("exploding")
    assert len(items) == len(hostile)
    assert {item["boilerplate_reason"] for item in items} == {"invalid-meta"}
    assert all(view["boilerplate"].extra["error"] for view in seen)
    counts = boilerplate_stats(stats)
    assert counts["errors/InvalidParameter"] == len(hostile) - 1
    assert counts["errors/ZeroDivisionError"] == 1
    assert not marking_module.exists()


def test_meta_may_name_a_method_the_settings_declare(tmp_path, monkeypatch):
    # BOILERPLATE_META_EXTRACTORS: the project owner lists import paths; they are imported at
    # start, and meta may then name them (and still nothing else).
    from scrapy_boilerplate.scrapy.config import Config

    module = tmp_path / "declared_method.py"
    module.write_text(
        "from scrapy_boilerplate import Extractor, Extraction\n"
        "class Declared(Extractor):\n"
        "    name = 'declared'\n"
        "    def extract(self, doc, params):\n"
        "        return Extraction.from_blocks([], self.name, params)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        config = Config.from_settings(
            Settings({"BOILERPLATE_META_EXTRACTORS": '["declared_method:Declared"]'})
        )
        assert config.meta_extractors == ("declared_method:Declared",)
        meta = {"boilerplate": {"extractor": "declared_method:Declared"}}
        assert config.for_request(meta)[0] == "declared_method:Declared"
        with pytest.raises(InvalidParameter):
            config.for_request({"boilerplate": {"extractor": "declared_method:Other"}})
    finally:
        registry.unregister("declared_method:Declared")


@pytest.mark.parametrize("name", ["BOILERPLATE_META_EXTRACTORS", "BOILERPLATE_META_FILES"])
def test_a_bad_list_setting_is_named_in_its_error(name):
    from scrapy_boilerplate.scrapy.config import BoilerplateSettingsError, Config

    with pytest.raises(BoilerplateSettingsError) as info:
        Config.from_settings(Settings({name: '["not closed"'}))
    assert info.value.setting == name
