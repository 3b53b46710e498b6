"""Bounded memory (issue 34, item 4): a corpus file over ``chunkeval_max_file_bytes`` is skipped before it is read,
with its size and the setting in the reason (report JSON, Markdown, terminal), and a strategy's chunks of one file
past ``chunkeval_max_chunks_per_file`` fall back to windows, named, without draining a generator past the cap.

The peak-RSS numbers of whole runs with the real model are measured by tools/measure_memory.py (docs/security.md);
these tests check the caps themselves, with the fake model where a run is needed.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import jsonschema
import pytest
from fake_model import FakeSentenceModel
from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, run, write_strategies, write_suite

from pytest_chunkeval.chunking.boundary import chunk_file
from pytest_chunkeval.chunking.fixed import FixedSizeChunker
from pytest_chunkeval.core.chunk import Chunk, line_starts, span_chunk
from pytest_chunkeval.core.corpus import MAX_FILE_BYTES, read_corpus
from pytest_chunkeval.core.golden import GoldenError, load_golden
from pytest_chunkeval.core.vocabulary import MAX_CHUNKS_PER_FILE
from pytest_chunkeval.retrieval.embed import Embedder

TEXT = "".join(f"line {i}\n" for i in range(40))


class Lines:
    """One chunk per line, yielded one at a time; ``taken`` counts how many the harness asked for."""

    name = "lines"

    def __init__(self) -> None:
        self.taken = 0

    def chunk(self, path: str, text: str) -> Iterator[Chunk]:
        starts = line_starts(text)
        for a, b in zip(starts, [*starts[1:], len(text)], strict=False):
            if a == b:
                break
            self.taken += 1
            yield span_chunk(text, starts, a, b, path=path, strategy=self.name)


def test_a_file_over_the_size_cap_is_skipped_with_its_size_and_the_setting(tmp_path: Path) -> None:
    (tmp_path / "small.py").write_text("x = 1\n")
    (tmp_path / "exact.js").write_text("a" * 100)
    (tmp_path / "bundle.min.js").write_text("a" * 101)
    corpus = read_corpus(tmp_path, max_bytes=100)
    assert sorted(corpus.files) == ["exact.js", "small.py"]
    assert corpus.skipped == {"bundle.min.js": "101 bytes, over the 100-byte limit "
                                               "(--chunkeval-max-file-bytes / ini chunkeval_max_file_bytes)"}
    assert sorted(read_corpus(tmp_path, max_bytes=0).files) == ["bundle.min.js", "exact.js", "small.py"]  # 0: no cap


def test_the_default_size_cap_skips_a_file_one_byte_over_it(tmp_path: Path) -> None:
    (tmp_path / "at.txt").write_bytes(b"a" * MAX_FILE_BYTES)
    (tmp_path / "over.txt").write_bytes(b"a" * (MAX_FILE_BYTES + 1))
    corpus = read_corpus(tmp_path)
    assert list(corpus.files) == ["at.txt"] and list(corpus.skipped) == ["over.txt"]


def test_a_query_naming_a_skipped_file_is_refused_at_its_line_with_the_reason(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "big.js").write_text("a" * 50)
    golden = tmp_path / "queries.yaml"
    golden.write_text("corpus: corpus\nqueries:\n  - id: q\n    query: where\n    relevant:\n      - path: big.js\n")
    with pytest.raises(GoldenError) as err:
        load_golden(golden, max_file_bytes=10)
    assert "queries.yaml:6: query 'q': relevant[0].path: 'big.js' is not a readable file" in str(err.value)
    assert "(50 bytes, over the 10-byte limit (--chunkeval-max-file-bytes" in str(err.value)
    assert [q.id for q in load_golden(golden, max_file_bytes=0).queries] == ["q"]


def test_more_chunks_than_the_cap_fall_back_to_windows_and_a_generator_is_not_drained() -> None:
    fallbacks: list[str] = []
    strategy = Lines()
    chunks = chunk_file(strategy, "lines", "m.txt", TEXT, fallbacks, max_chunks=10)
    assert fallbacks == ["m.txt: more than 10 chunks for one file "
                         "(--chunkeval-max-chunks-per-file / ini chunkeval_max_chunks_per_file)"]
    assert strategy.taken == 11  # one past the cap tells "too many"; the other 29 lines are never made
    assert chunks == FixedSizeChunker(name="lines").chunk("m.txt", TEXT)


@pytest.mark.parametrize("cap", [40, 0])
def test_up_to_the_cap_or_without_one_every_chunk_is_kept(cap: int) -> None:
    fallbacks: list[str] = []
    chunks = chunk_file(Lines(), "lines", "m.txt", TEXT, fallbacks, max_chunks=cap)
    assert fallbacks == [] and len(chunks) == 40


def test_the_default_cap_applies_when_a_caller_names_none() -> None:
    class Many:
        name = "many"

        def chunk(self, path: str, text: str) -> list[Chunk]:
            return [Chunk("x", path, 1, 1, 0, 1, "many")] * (MAX_CHUNKS_PER_FILE + 1)

    fallbacks: list[str] = []
    chunk_file(Many(), "many", "m.txt", "x\n", fallbacks)
    assert fallbacks == [f"m.txt: more than {MAX_CHUNKS_PER_FILE:,} chunks for one file "
                         "(--chunkeval-max-chunks-per-file / ini chunkeval_max_chunks_per_file)"]


WINDOWS = {"windows.py": """
    from pytest_chunkeval import FixedSizeChunker, strategy

    @strategy
    def small_windows():
        return FixedSizeChunker(max_chunk_size=40, overlap=0)
"""}


@pytest.fixture
def capped(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    """The shop with a 3,000-byte one-line bundle beside it, a strategy of 40-character windows, the fake model."""
    fake = FakeSentenceModel()
    monkeypatch.setattr(Embedder, "model", lambda self: fake)
    name_suites(pytester)
    write_strategies(pytester.path, WINDOWS)
    write_suite(pytester.path / "golden" / "shop", {**SHOP_CORPUS, "bundle.min.js": "var a=1;" * 375}, SHOP_GOLDEN)
    return pytester


def _report(p: pytest.Pytester) -> dict:
    return json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())


def test_a_skipped_big_file_is_in_the_report_the_markdown_and_the_summary(capped: pytest.Pytester) -> None:
    result = run(capped, "-p", "no:randomly", "--chunkeval-max-file-bytes=2000", "--chunkeval-markdown=r.md")
    out = result.stdout.str()
    assert "Traceback" not in out and "INTERNALERROR" not in out
    reason = "3,000 bytes, over the 2,000-byte limit (--chunkeval-max-file-bytes / ini chunkeval_max_file_bytes)"
    result.stdout.fnmatch_lines([f"*skipped corpus file bundle.min.js: {reason}*"])
    report = _report(capped)
    suite = report["suites"]["golden/shop/queries.yaml"]
    assert suite["skipped_files"] == {"bundle.min.js": reason} and suite["files"] == 2
    markdown = (capped.path / "r.md").read_text()  # escaped: an underscore is no emphasis there
    assert "skipped corpus file bundle.min.js: " + reason.replace("_", "\\_") in markdown
    schema = json.loads((Path(__file__).parents[2] / "pytest_chunkeval" / "schemas" / "report.schema.json").read_text())
    jsonschema.validate(report, schema)
    suite["skipped_files"] = {"bundle.min.js": 3000}  # the schema says what a reason is
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(report, schema)


def test_the_chunk_cap_falls_back_by_file_and_is_part_of_the_index_key(capped: pytest.Pytester) -> None:
    """A first run with the default cap fills the caches; a capped second run must chunk again, not read the
    uncapped chunks back (another cap is another index)."""
    first = run(capped, "-p", "no:randomly")
    assert "more than" not in first.stdout.str()
    result = run(capped, "-p", "no:randomly", "--chunkeval-max-chunks-per-file=4")
    entry = _report(capped)["suites"]["golden/shop/queries.yaml"]["strategies"]["small_windows"]
    why = "more than 4 chunks for one file (--chunkeval-max-chunks-per-file / ini chunkeval_max_chunks_per_file)"
    # 40-character windows: bundle.min.js (3,000 bytes) 75, orders.py (175) 5, auth.py (135) 4: kept
    assert entry["fallbacks"] == [f"bundle.min.js: {why}", f"orders.py: {why}"]
    result.stdout.fnmatch_lines(["*small_windows's own chunking failed on 2 of 3 files*", f"*bundle.min.js: {why}*"])


def test_the_base_is_evaluated_with_the_heads_caps_when_they_are_not_the_defaults() -> None:
    from pytest_chunkeval.run.base_ref import BaseRequest, _command
    from pytest_chunkeval.run.parts.base_side import base_caps
    from pytest_chunkeval.settings.options import Options

    assert base_caps(Options(rootdir=Path())) == {}
    caps = base_caps(Options(rootdir=Path(), max_file_bytes=2000, max_chunks_per_file=0))
    assert caps == {"chunkeval_max_file_bytes": 2000, "chunkeval_max_chunks_per_file": 0}
    cmd = _command(BaseRequest(Path("."), "main", [], caps=caps), Path("/base"), [], Path("r.json"))
    assert [cmd[i + 1] for i, a in enumerate(cmd) if a == "-o" and "max_" in cmd[i + 1]] == [
        "chunkeval_max_chunks_per_file=0", "chunkeval_max_file_bytes=2000"]


def test_the_measurement_tool_writes_projects_whose_hostile_file_the_caps_catch(tmp_path: Path) -> None:
    """tools/measure_memory.py's projects, small: the long line is skipped by the size cap, the per-line strategy
    trips the chunk cap, the many small files are all read (so the recorded numbers measure what they claim)."""
    from argparse import Namespace

    from tool_modules import load_tool

    from pytest_chunkeval.chunking.contract import unregister

    tool = load_tool("measure_memory")
    long_line, _ = tool.scenario(Namespace(scenario="long-line", mb=2, strategy=""), tmp_path / "a")
    skipped = load_golden(long_line / "golden" / "s" / "queries.yaml").corpus.skipped
    assert list(skipped) == ["bundle.min.js"] and "over the 1,048,576-byte limit" in skipped["bundle.min.js"]
    many, name = tool.scenario(Namespace(scenario="many-chunks", chunks=20_000, strategy=""), tmp_path / "b")
    namespace: dict = {}
    try:
        exec((many / "strategies" / "per_line.py").read_text(), namespace)
    finally:
        unregister("per_line")
    fallbacks: list[str] = []
    text = (many / "golden" / "s" / "corpus" / "lines.txt").read_text()
    chunk_file(namespace["PerLine"](), name, "lines.txt", text, fallbacks)
    assert fallbacks == ["lines.txt: more than 10,000 chunks for one file "
                         "(--chunkeval-max-chunks-per-file / ini chunkeval_max_chunks_per_file)"]
    files, _ = tool.scenario(Namespace(scenario="many-files", files=30, strategy=""), tmp_path / "c")
    assert len(load_golden(files / "golden" / "s" / "queries.yaml").corpus.files) == 32


def test_a_ray_worker_caps_each_file_as_the_driver_asks(tmp_path: Path) -> None:
    """What a Ray worker does with a batch of files, in this process: the cap travels with the batch."""
    import pickle

    import numpy as np

    from pytest_chunkeval.chunking.contract import Registration, unregister
    from pytest_chunkeval.evaluation.ray_engine import StrategySpec, chunk_rows

    path = tmp_path / "ray_cap_probe.py"
    path.write_text("from pytest_chunkeval import FixedSizeChunker, strategy\n\n@strategy\ndef ray_cap_probe():\n"
                    "    return FixedSizeChunker(max_chunk_size=10, overlap=0)\n")
    batch = {"index": np.array([0]), "path": np.array(["m.txt"], dtype=object),
             "text": np.array([TEXT], dtype=object)}  # 310 characters: 31 windows of 10
    try:
        spec = StrategySpec.of(Registration("ray_cap_probe", lambda: None, f"{path}:3"), None)
        capped = pickle.loads(chunk_rows(batch, spec, max_chunks=20)["payload"][0])
        free = pickle.loads(chunk_rows(batch, spec, max_chunks=0)["payload"][0])
    finally:
        unregister("ray_cap_probe")
    assert capped[1] == ["m.txt: more than 20 chunks for one file "
                         "(--chunkeval-max-chunks-per-file / ini chunkeval_max_chunks_per_file)"]
    assert free[1] == [] and len(free[0]) == 31
