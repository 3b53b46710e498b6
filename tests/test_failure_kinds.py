"""A failed item's kind is data its item states and its report carries (through pytest-xdist too), not something the
verdict reads off the item's id or message: a renamed item is still judged for what it checks."""
from __future__ import annotations

import json
from pathlib import Path

import lancedb  # noqa: F401
import pytest
import sentence_transformers  # noqa: F401
from _pytest.reports import pytest_report_to_serializable  # pytest's own hook, as a worker calls it
from project_files import SHOP_CORPUS, SHOP_GOLDEN, name_suites, write_suite

from pytest_chunkeval.run.hooks import pytest_report_from_serializable
from pytest_chunkeval.run.items import NamedReport

# In-process pytester runs restore sys.modules afterwards; LanceDB's native module panics when imported twice and
# torch is slow to re-import, so both are imported above, outside the inner runs, and stay loaded.

# A strategy that breaks its declarations (lossless, max_chunk_size) and falls back on one file; and a hook that
# renames every quality item (as an edit of items.py would) so that neither its id nor its message says "quality" or "fallback" any more.
CONFTEST = """
    from pytest_chunkeval import FixedSizeChunker, Strategy, strategy

    class Lossy(Strategy):
        name = "lossy"
        max_chunk_size = 60  # promised, and broken: it cuts 200-character windows

        def chunk(self, path, text):
            if path == "orders.py":
                raise RuntimeError("cannot parse this one")
            keep = text.rstrip("\\n").rsplit("\\n", 1)[0] + "\\n"  # and it drops each file's last line
            return FixedSizeChunker(200, 0, name="lossy").chunk(path, keep)

    @strategy
    def lossy():
        return Lossy()

    # As if items.py named its quality items "check[...]": the id is the item's everywhere (selection, reports).
    # Undone when the run ends: an in-process run shares the package's modules with the session running this test.
    from pytest_chunkeval.run import items

    def _renamed(cls, parent, *, name, **kw):
        return super(items.QualityItem, cls).from_parent(parent, name=name.replace("quality[", "check["), **kw)

    def pytest_configure(config):
        items.QualityItem.from_parent = classmethod(_renamed)

    def pytest_unconfigure(config):
        del items.QualityItem.from_parent
"""

SUITE = "golden/shop/queries.yaml"
ARGS = ("--chunkeval", "-p", "no:cacheprovider", "--chunkeval-no-progress", "-k", "lossy and check",
        "--chunkeval-strategies=lossy")
EXPECTED = [
    ("strategies whose own chunking fell back to fixed windows", [f"{SUITE}::lossy::check[fallback]"]),
    ("strategies that break their own declarations",
     [f"{SUITE}::lossy::check[lossless]", f"{SUITE}::lossy::check[size-limit]"]),
]


def reasons(report_path: Path) -> list[tuple[str, list[str]]]:
    """(title, the failed items' ids, sorted) of each reason of the report's verdict, in the verdict's order."""
    verdict = json.loads(report_path.read_text())["verdict"]
    return [(r["title"], sorted(line.split(": ", 1)[0] for line in r["lines"])) for r in verdict["reasons"]]


@pytest.fixture
def lossy_project(pytester: pytest.Pytester) -> pytest.Pytester:
    """The shop with the lossy strategy and the renamed quality items."""
    name_suites(pytester)
    write_suite(pytester.path / "golden" / "shop", SHOP_CORPUS, SHOP_GOLDEN)
    pytester.makeconftest(CONFTEST)
    return pytester


@pytest.mark.slow
def test_a_renamed_item_keeps_its_kind(lossy_project: pytest.Pytester) -> None:
    result = lossy_project.runpytest(*ARGS, "-v")
    result.assert_outcomes(failed=3, skipped=2)  # the fallback, lossless and size-limit checks; no window promise, no parsing
    result.stdout.fnmatch_lines([f"*{SUITE}::lossy::check[[]lossless[]] FAILED*"])
    assert "other failures" not in result.stdout.str()
    assert reasons(lossy_project.path / ".chunkeval" / "chunkeval-report.json") == EXPECTED


@pytest.mark.slow
def test_under_xdist_the_kinds_travel_with_the_reports(lossy_project: pytest.Pytester) -> None:
    pytest.importorskip("xdist")
    # In a subprocess: xdist's workers are processes anyway, and the controller must not be this test session. The
    # controller judges the verdict from the reports the workers send it, so the kinds must come with them.
    result = lossy_project.runpytest_subprocess(*ARGS, "-n", "2")
    result.assert_outcomes(failed=3, skipped=2)
    result.stdout.fnmatch_lines(["*VERDICT: FAIL*"])
    assert "other failures" not in result.stdout.str()
    assert reasons(lossy_project.path / ".chunkeval" / "chunkeval-report.json") == EXPECTED


def test_the_kind_survives_the_reports_serialization() -> None:
    """What pytest-xdist does to a report between a worker and the controller: pytest's own serialization (the
    report's ``__dict__``), then the plugin's rebuild of its report class."""
    report = NamedReport(f"{SUITE}::lossy::check[lossless]", (SUITE, None, ""), {}, "failed", "lossy claims ...",
                         "call")
    report.failure_kind = "quality"
    data = pytest_report_to_serializable(report)
    assert data is not None and data["$report_type"] == "NamedReport"
    data = json.loads(json.dumps(data))  # as it crosses the process boundary: plain data
    again = pytest_report_from_serializable(None, data)  # type: ignore[arg-type]  # config is not read
    assert isinstance(again, NamedReport) and again.failure_kind == "quality" and again.head_line == report.nodeid
