"""The plugin through pytester, end to end: real embedder, real LanceDB, real files (a tiny corpus, so it is quick)."""
from __future__ import annotations

import json
import re
import textwrap

import pytest
from project_files import PROJECT_CORPUS, PROJECT_GOLDEN, run

from pytest_chunkeval.commands.verify import verify_report

# The ``project`` fixture (tests/conftest.py) writes the shop of tests/project_files.py and loads LanceDB and the
# model's libraries once for the session, outside the in-process runs.

pytestmark = pytest.mark.slow


def test_evaluates_every_suite_and_strategy_and_writes_a_verifiable_report(project: pytest.Pytester) -> None:
    result = run(project, "-v", "-rs", "--chunkeval-markdown=summary.md", "--chunkeval-chart=out/chart.png")
    result.assert_outcomes(passed=9, skipped=5)
    assert (project.path / "out" / "chart.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "| fixed_size | " in (project.path / "summary.md").read_text()
    for item in ("file_level::order-total", "fixed_size::password-hash"):  # in whatever order they ran
        result.stdout.fnmatch_lines([f"*golden/shop/queries.yaml::{item} PASSED*"])
    result.stdout.fnmatch_lines(["*chunkeval summary*", "*file_level*", "*fixed_size*"])
    assert "collected corpus" not in result.stdout.str()
    report_path = project.path / ".chunkeval" / "chunkeval-report.json"
    report = json.loads(report_path.read_text())
    suite = report["suites"]["golden/shop/queries.yaml"]
    assert set(suite["strategies"]) == {"file_level", "fixed_size"}
    fixed = suite["strategies"]["fixed_size"]
    assert fixed["index"]["chunk_count"] == len(fixed["chunks"]) > 4
    assert fixed["index"]["embedded"] + fixed["index"]["cached"] == fixed["index"]["chunk_count"]
    assert verify_report(report_path) == []
    assert report["model"]["sha256"]["model.safetensors"].startswith("53aa5117")


def test_second_run_reuses_indexes_and_embeds_nothing(project: pytest.Pytester) -> None:
    run(project).assert_outcomes(passed=9, skipped=5)
    second = run(project)
    second.assert_outcomes(passed=9, skipped=5)
    second.stdout.fnmatch_lines(["*embedded 0 texts*from cache*"])
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    for entry in report["suites"]["golden/shop/queries.yaml"]["strategies"].values():
        assert entry["index"]["reused"] is True
        assert entry["index"]["embedded"] == 0


def test_changing_a_strategy_rebuilds_only_its_index(project: pytest.Pytester) -> None:
    run(project).assert_outcomes(passed=9, skipped=5)
    path = project.path / "strategies" / "fixed_size.py"
    path.write_text(path.read_text().replace("max_chunk_size=120", "max_chunk_size=150"))
    run(project).assert_outcomes(passed=9, skipped=5)
    strategies = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())["suites"]["golden/shop/queries.yaml"]["strategies"]
    assert strategies["file_level"]["index"]["reused"] is True
    assert strategies["fixed_size"]["index"]["reused"] is False


def test_k_selects_by_strategy_and_query(project: pytest.Pytester) -> None:
    run(project, "-k", "fixed_size and password").assert_outcomes(passed=1)


def test_plain_pytest_collects_nothing_and_imports_nothing_heavy(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_plain="""
        import sys

        def test_light(fixed_size):
            assert fixed_size.chunk("a.py", "x = 1\\n")[0].start_line == 1
            heavy = [m for m in ("sentence_transformers", "torch", "lancedb") if m in sys.modules]
            assert heavy == []
        """
    )
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "test_plain.py")
    result.assert_outcomes(passed=1)
    result = project.runpytest_subprocess("-p", "no:cacheprovider", "--collect-only", "-q")
    assert "queries.yaml" not in result.stdout.str()


def test_a_miss_is_listed_until_recorded_then_reported_and_with_a_strict_record_fails(project: pytest.Pytester) -> None:
    golden = project.path / "golden" / "shop" / "queries.yaml"
    # With k=1 a query about passwords cannot rank the orders file first: a deterministic miss.
    wrong = golden.read_text().replace("path: auth.py\n        lines: [4, 5]", "path: orders.py\n        lines: [10, 12]")
    golden.write_text(wrong)
    first = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password")
    first.assert_outcomes(xfailed=1)  # no record yet: nothing to hold the miss against, so it is listed
    first.stdout.fnmatch_lines([
        "golden/shop/queries.yaml: no accepted-misses record yet; 1 misses (xfailed):",
        "  fixed_size: password-hash",
        "1 misses on suites with no accepted-misses record yet; to hold today's state, record it with: pytest "
        "--chunkeval * -k 'fixed_size and password' * --chunkeval-accept-misses",
    ])
    accepted = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password", "--chunkeval-accept-misses")
    accepted.assert_outcomes(passed=1)
    record = (golden.parent / "accepted_misses.yaml").read_text()
    assert "password-hash" in record and "k=1" in record
    known = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password")
    known.assert_outcomes(xfailed=1)
    known.stdout.fnmatch_lines(["1 xfailed query items are misses recorded in accepted_misses.yaml (known misses, not "
                                "failures)"])
    golden.write_text(textwrap.dedent(PROJECT_GOLDEN))
    # By default a recorded miss that now hits passes, and the run says the record is out of date.
    found = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password")
    found.assert_outcomes(passed=1)
    found.stdout.fnmatch_lines([
        "VERDICT: PASS*",
        "*note: 0 queries missed that the accepted-misses record does not list, 1 recorded misses now found "
        "(reported, not failed); intended? refresh the record: `pytest --chunkeval *--chunkeval-accept-misses`*",
        "golden/shop/queries.yaml::fixed_size: 1 recorded misses now found (passed): password-hash",
        "the record is out of date; if the change is intended, refresh it: pytest --chunkeval *--chunkeval-accept-misses",
    ])
    # A strict record fails it as FIXED.
    fixed = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password", "-o", "chunkeval_misses=fail")
    fixed.assert_outcomes(failed=1)
    fixed.stdout.fnmatch_lines(["*FIXED: fixed_size: a chunk in the top 1 now overlaps a relevant line span, but the "
                                "query is recorded as an accepted miss*"])
    assert "_ test session _" not in fixed.stdout.str()
    fixed.stdout.fnmatch_lines(["*_ golden/shop/queries.yaml::fixed_size::password-hash _*"])
    run(project, "--chunkeval-k", "1", "-k", "fixed_size and password", "--chunkeval-accept-misses").assert_outcomes(passed=1)
    assert "password-hash" not in (golden.parent / "accepted_misses.yaml").read_text()  # held: it hits, and must
    golden.write_text(wrong)
    # By default a miss the record does not list is xfailed and listed as lost since the record.
    lost = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password", "-rx")
    lost.assert_outcomes(xfailed=1)
    lost.stdout.fnmatch_lines([
        "golden/shop/queries.yaml::fixed_size: 1 missed and not in the record (xfailed: reported, not failed "
        "(chunkeval_misses = report)): password-hash",
        "XFAIL *password-hash - missed; accepted_misses.yaml does not list it (lost since the record was made, or a "
        "query added since): reported, not failed (chunkeval_misses = report)",
    ])
    failed = run(project, "--chunkeval-k", "1", "-k", "fixed_size and password", "-o", "chunkeval_misses=fail")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(["golden/shop/queries.yaml::fixed_size: 1 missed and not in the record (failed): "
                                 "password-hash",
                                 "the record is out of date; if the change is intended, refresh it: *"
                                 "--chunkeval-accept-misses"])
    failed.stdout.fnmatch_lines(
        [
            "*_ golden/shop/queries.yaml::fixed_size::password-hash _*",
            "*MISS: fixed_size: no chunk in the top 1 overlaps a relevant line span (hits are judged per chunk; the "
            "file-mode metrics below credit any chunk of a relevant file)*",
            "*query 'password-hash': How are user passwords hashed with a salt?*",
            "*orders.py lines 10-12 (grade 1)*",
            "*top 1 retrieved:*",
            "*1.   auth.py:1-*",
        ]
    )
    assert "no accepted-misses record yet" not in failed.stdout.str()


def test_invalid_golden_is_a_collection_error_naming_the_place(project: pytest.Pytester) -> None:
    golden = project.path / "golden" / "shop" / "queries.yaml"
    golden.write_text(golden.read_text().replace("lines: [10, 12]", "lines: [10, 99]"))
    result = run(project)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*queries.yaml:13: query 'order-total': relevant[[]0].lines: [[]10, 99] runs past the end of orders.py*"])


def test_conftest_strategy_and_a_suite_it_cannot_handle_is_skipped_with_reason(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        from pytest_chunkeval import FileLevelChunker, strategy

        class DocsOnly(FileLevelChunker):
            name = "docs_only"
            extensions = (".rst",)

        @strategy
        def docs_only():
            return DocsOnly()
        """
    )
    result = run(project, "-rs", "-k", "docs_only", "--chunkeval-strategies=docs_only")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*docs_only: handles none of the 4 files of this suite (it handles .rst)*"])
    result.stdout.fnmatch_lines(["*chunkeval summary*", "docs_only: skipped: handles none of the 4 files of this suite (it handles .rst)"])
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    assert report["suites"]["golden/shop/queries.yaml"]["strategies"]["docs_only"]["skipped"].startswith("handles none")


def test_golden_path_option_runs_a_suite_anywhere(project: pytest.Pytester, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "corpus").mkdir()
    (elsewhere / "corpus" / "auth.py").write_text(textwrap.dedent(PROJECT_CORPUS["auth.py"]).lstrip("\n"))
    (elsewhere / "q.yaml").write_text(
        "queries:\n  - id: hashing\n    query: salted password hashing\n    relevant:\n      - path: auth.py\n"
    )
    project.makepyfile(test_unrelated="def test_unrelated():\n    pass\n")
    result = run(project, f"--chunkeval-golden={elsewhere / 'q.yaml'}", "-v")
    result.assert_outcomes(passed=7, skipped=5, deselected=1)  # only the named suite; the project's test waits
    assert "shop" not in result.stdout.str()
    # Written with a space, pytest takes the path for a test argument when it picks its rootdir (before any
    # plugin can say otherwise), and the project's ini is not read; its strategy files still are (the
    # invocation folder's strategies/), and replace the built-ins of the same names.
    spaced = run(project, "--chunkeval-golden", str(elsewhere / "q.yaml"), "--chunkeval-strategies=file_level,fixed_size")
    spaced.assert_outcomes(passed=7, skipped=5, deselected=1)
    spaced.stdout.fnmatch_lines(["chunkeval: fixed_size (strategies/fixed_size.py:4) replaces the built-in fixed_size*"])


def test_gate_items_name_the_gate_the_values_and_the_worst_queries(project: pytest.Pytester) -> None:
    result = run(project, "-v", "--chunkeval-gate", "fixed_size", "-k", "gate", "-o", "chunkeval_gate_size_increase=5.0")
    # fixed_size cuts 4 small files into more chunks: its index is bigger, which a 5x allowance accepts.
    # On this corpus fixed_size finds what file_level finds and ranks it higher (the report's numbers below).
    for gate in ("ndcg-gain", "recall-drop", "index-size"):  # in whatever order they ran
        result.stdout.fnmatch_lines([f"*fixed_size::gate[[]{gate}[]] PASSED*"])
    assert "file_level::gate" not in result.stdout.str()  # the baseline is never gated against itself
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    gates = {g["name"]: g for g in report["suites"]["golden/shop/queries.yaml"]["strategies"]["fixed_size"]["gates"]}
    assert gates["index-size"]["passed"] is True and gates["index-size"]["threshold"] == 5.0
    assert gates["ndcg-gain"]["measured"] >= gates["ndcg-gain"]["threshold"]
    assert gates["recall-drop"]["measured"] <= gates["recall-drop"]["threshold"]
    strict = run(project, "--chunkeval-gate", "fixed_size", "-k", "gate", "-o", "chunkeval_gate_size_increase=0.0")
    strict.assert_outcomes(passed=2, failed=1)
    strict.stdout.fnmatch_lines(["*fixed_size fails gate index-size against file_level: index bytes * vs baseline *"])


def test_quality_items_fail_a_strategy_that_breaks_its_promises(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        from pytest_chunkeval import FixedSizeChunker, Strategy, strategy

        class Lossy(Strategy):
            name = "lossy"
            max_chunk_size = 60  # promised, and broken: it cuts 200-character windows

            def chunk(self, path, text):
                keep = text.rstrip("\\n").rsplit("\\n", 1)[0] + "\\n"  # and it drops each file's last line
                return FixedSizeChunker(200, 0, name="lossy").chunk(path, keep)

        @strategy
        def lossy():
            return Lossy()
        """
    )
    result = run(project, "-k", "lossy and quality", "--chunkeval-strategies=lossy")
    result.assert_outcomes(failed=2, skipped=2, passed=1)  # passed: quality[fallback], it never fell back; it parses nothing
    result.stdout.fnmatch_lines(
        [
            "*lossy claims to be lossless but 4 of * non-blank lines are in no chunk:*",
            "*auth.py:9: return hash_password(password, salt) == digest*",
        ]
    )
    result.stdout.fnmatch_lines(["*chunks exceed lossy's limit of 60 chars:*"])


def test_a_strategy_that_yields_no_chunks_scores_zero_and_one_that_crashes_falls_back(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        from pytest_chunkeval import Strategy, strategy

        class Nothing(Strategy):
            name = "nothing"
            lossless = False

            def chunk(self, path, text):
                return []

        class Crashy(Strategy):
            name = "crashy"

            def chunk(self, path, text):
                if path == "orders.py":
                    raise RuntimeError("cannot parse this one")
                return []

        @strategy
        def nothing():
            return Nothing()

        @strategy
        def crashy():
            return Crashy()
        """
    )
    result = run(project, "-k", "nothing or crashy", "-rs", "--chunkeval-strategies=nothing,crashy")
    # nothing: both queries miss (listed: no record yet); its quality items are skipped (it claims nothing) but
    # the fallback check passes. crashy: orders.py falls back to fixed windows, so order-total is found;
    # password-hash misses, its lossless claim fails (auth.py lost), and so does the fallback check (1 of 4 files).
    result.assert_outcomes(xfailed=3, failed=2, passed=2, skipped=7)
    result.stdout.fnmatch_lines(["*crashy: fallback: orders.py: RuntimeError: cannot parse this one*"])
    result.stdout.fnmatch_lines([
        "*crashy's own chunking failed on 1 of 4 files (25%), more than chunkeval_max_fallback allows (0%)*",
        "first: orders.py: RuntimeError: cannot parse this one",
    ])
    result.stdout.fnmatch_lines(["*crashy (fallback 1/4 files) *"])  # the table marks the row
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    nothing = report["suites"]["golden/shop/queries.yaml"]["strategies"]["nothing"]
    assert nothing["aggregate"]["file"]["ndcg@10"] == 0.0 and nothing["chunks"] == []
    # The empty strategy as the baseline: every ratio against it is undefined, and the report stays strict JSON.
    run(project, "-k", "nothing or crashy", "--chunkeval-baseline=nothing", "--chunkeval-strategies=nothing,crashy")

    def refuse(constant: str) -> None:
        raise ValueError(f"not strict JSON: {constant}")

    strict = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text(), parse_constant=refuse)
    crashy = strict["suites"]["golden/shop/queries.yaml"]["strategies"]["crashy"]
    gates = {g["name"]: g for g in crashy["gates"]}
    assert gates["index-size"]["measured"] is None and gates["index-size"]["passed"] is False
    assert gates["ndcg-gain"]["measured"] is None
    assert crashy["vs_baseline"]["file"]["ndcg@10"]["relative"] is None
    # A user may allow a share of fallbacks explicitly.
    allowed = run(project, "-k", "crashy and fallback", "--chunkeval-strategies=crashy", "--chunkeval-max-fallback=0.25")
    allowed.assert_outcomes(passed=1)


def test_a_failed_evaluation_is_reported_once_in_full_and_then_by_reference(project: pytest.Pytester) -> None:
    project.makeconftest(
        """
        from pytest_chunkeval import Strategy, strategy

        class Broken(Strategy):
            name = "broken"

            def chunk(self, path, text):
                return []

            def stats(self):
                raise RuntimeError("counter store is gone")

        @strategy
        def broken():
            return Broken()
        """
    )
    result = run(project, "-k", "broken", "--chunkeval-strategies=broken")
    result.assert_outcomes(failed=7)
    reports = failure_reports(result)
    assert len(reports) == 7
    # Whichever item ran first (pytest-randomly may reorder them) carries the traceback, and it alone.
    first, *later = reports
    assert "RuntimeError: counter store is gone" in reports[first]
    assert [name for name, text in reports.items() if "counter store is gone" in text] == [first]
    # Each later item's report is one line that names the first; no second traceback. Other sections of the
    # output (a warnings summary, another plugin's notes) are not counted.
    for name in later:
        assert reports[name].strip() == f"the evaluation of broken on this suite failed: see {first}", name


def failure_reports(result: pytest.RunResult) -> dict[str, str]:
    """Each failed item's report in the FAILURES section, by item id, in the order printed (the order they ran)."""
    reports: dict[str, list[str]] = {}
    lines = iter(result.stdout.lines)
    for line in lines:
        if re.fullmatch(r"=+ FAILURES =+", line):
            break
    current: list[str] | None = None
    for line in lines:
        if re.fullmatch(r"=+ .* =+", line):  # the next section: warnings, the short summary, the last line
            break
        header = re.fullmatch(r"_+ (\S.*?) _+", line.rstrip())
        if header and set(header[1]) - {"_", " "}:  # not a traceback's "_ _ _" line between two frames
            current = reports.setdefault(header[1], [])
        elif current is not None:
            current.append(line)
    return {name: "\n".join(body) for name, body in reports.items()}


def test_regression_items_compare_with_a_previous_report(project: pytest.Pytester) -> None:
    run(project).assert_outcomes(passed=9, skipped=5)
    previous = project.path / "main-report.json"
    previous.write_text((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    same = run(project, "--chunkeval-compare", "main-report.json", "-k", "regression")
    same.assert_outcomes(passed=2)
    # A change that makes fixed_size worse: its windows now hold 30 characters.
    path = project.path / "strategies" / "fixed_size.py"
    path.write_text(path.read_text().replace("max_chunk_size=120, overlap=20", "max_chunk_size=30, overlap=5"))
    # Two queries can never reach p < 0.05: with significance off, a fall past the tolerance is enough.
    worse = run(project, "--chunkeval-compare", "main-report.json", "-k", "regression",
                "-o", "chunkeval_regression_alpha=off", "-o", "chunkeval_regression_size_increase=100")
    worse.assert_outcomes(passed=1, failed=1)
    worse.stdout.fnmatch_lines([
        "*_ golden/shop/queries.yaml::fixed_size::regression _*",
        "*fixed_size got worse than on *main-report.json (2 paired queries; a fall of file-mode NDCG or R, or a net "
        "share of queries lost (lost minus gained), counts past 0.01 with no significance required*",
        "*ndcg@10 (file) fell 1.0000 -> 0.8155 (-0.1845, 95% CI *, paired p=*",
    ])
    report = json.loads((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    fixed = report["suites"]["golden/shop/queries.yaml"]["comparison"]["strategies"]["fixed_size"]
    assert fixed["verdict"] == "worse" and fixed["index"]["head_chunks"] > fixed["index"]["base_chunks"]
    assert report["suites"]["golden/shop/queries.yaml"]["comparison"]["strategies"]["file_level"]["verdict"] == "unchanged"
    # With the defaults, two queries are not evidence of a fall, but the index growth is.
    default = run(project, "--chunkeval-compare", "main-report.json", "-k", "regression")
    default.assert_outcomes(passed=1, failed=1)
    default.stdout.fnmatch_lines(["*index grew * (+*%)*"])
    assert "ndcg@10 (file) fell" not in default.stdout.str()


def test_a_stored_report_made_unlike_this_run_is_refused_before_any_item_runs(project: pytest.Pytester) -> None:
    run(project, "--chunkeval-k=5").assert_outcomes(passed=9, skipped=5)
    stored = project.path / "k5.json"
    stored.write_text((project.path / ".chunkeval" / "chunkeval-report.json").read_text())
    report = json.loads(stored.read_text())
    assert report["comparable"]["k"] == 5 and report["suites"]["golden/shop/queries.yaml"]["corpus_hash"]

    def refused(*args: str) -> str:
        result = run(project, "--chunkeval-compare", str(stored), *args)
        assert result.ret == pytest.ExitCode.USAGE_ERROR, result.stdout.str()[-2000:]
        assert "passed" not in result.stdout.str() and "failed" not in result.stdout.str()  # no item ran
        return result.stderr.str()

    err = refused()  # this run has k = 10
    assert "was not made like this run" in err and "k (rank cutoff): base 5, head 10" in err
    assert "metric set: base" in err
    same_k = refused("--chunkeval-k=5", "--chunkeval-retrieval=vector")
    assert "retrieval modes: base hybrid, head vector" in same_k and "k (rank" not in same_k
    report["comparable"]["model_sha256"]["model.safetensors"] = "0" * 64
    stored.write_text(json.dumps(report))
    assert "model weights (sha256): base model.safetensors 000000000000" in refused("--chunkeval-k=5")
    report["comparable"]["model"] = "someone/other-model"
    stored.write_text(json.dumps(report))
    assert "model: base someone/other-model, head sentence-transformers/all-MiniLM-L6-v2" in refused("--chunkeval-k=5")
    # The same settings, another corpus: the file that differs is named.
    run(project, "--chunkeval-k=5", f"--chunkeval-report={stored}").assert_outcomes(passed=9, skipped=5)
    orders = project.path / "golden" / "shop" / "corpus" / "orders.py"
    orders.write_text(orders.read_text() + "\n# a comment\n")
    assert "golden/shop/queries.yaml corpus: base" in (err := refused("--chunkeval-k=5")) and "orders.py" in err
