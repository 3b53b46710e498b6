"""--chunkeval-base end to end: a real git repository, the base evaluated in a worktree by a real subprocess, the real
model and LanceDB (the tiny project of the ``project`` fixture, so it stays quick)."""
from __future__ import annotations

import json

import pytest
from project_files import git, run

pytestmark = pytest.mark.slow


@pytest.fixture
def repo(project: pytest.Pytester) -> pytest.Pytester:
    git(project, "init", "-q", "-b", "main")
    git(project, "add", ".")
    git(project, "commit", "-q", "-m", "base")
    return project


def comparison(p: pytest.Pytester) -> dict:
    report = json.loads((p.path / ".chunkeval" / "chunkeval-report.json").read_text())
    return report["suites"]["golden/shop/queries.yaml"]["comparison"] | {"base": report["base"]}


def test_no_change_is_unchanged_and_the_warm_base_embeds_nothing(repo: pytest.Pytester) -> None:
    run(repo, "--chunkeval-base=main").assert_outcomes(passed=11, skipped=5)
    again = run(repo, "--chunkeval-base=main", "--chunkeval-markdown=pr.md")
    again.assert_outcomes(passed=11, skipped=5)
    cmp = comparison(repo)
    assert {s["verdict"] for s in cmp["strategies"].values()} == {"unchanged"}
    assert cmp["base"]["ref"] == "main" and cmp["base"]["embedded"] == 0
    assert "unchanged" in (repo.path / "pr.md").read_text()
    again.stdout.fnmatch_lines(["*base main (*): evaluated in a temporary worktree in *s, embedded 0 texts*"])
    assert git(repo, "worktree", "list").count("\n") == 1  # the temporary worktree is gone


def test_a_worse_strategy_fails_its_vs_base_item_with_what_moved(repo: pytest.Pytester) -> None:
    path = repo.path / "strategies" / "fixed_size.py"
    path.write_text(path.read_text().replace("max_chunk_size=120, overlap=20", "max_chunk_size=30, overlap=5"))
    git(repo, "commit", "-qam", "smaller windows")
    result = run(repo, "--chunkeval-base=HEAD~1", "-o", "chunkeval_regression_alpha=off", "-k", "vs-base",
                 "--chunkeval-markdown=pr.md")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines([
        "*_ golden/shop/queries.yaml::fixed_size::vs-base _*",
        "fixed_size got worse than on base HEAD~1 (2 paired queries; a fall of file-mode NDCG or R, or a net share of "
        "queries lost (lost minus gained), counts past 0.01 with no significance*",
        "*ndcg@10 (file) fell *",
        "chunk boundaries moved in 4 files (9 -> 31 chunks)",
    ])
    cmp = comparison(repo)
    assert cmp["strategies"]["fixed_size"]["verdict"] == "worse"
    assert cmp["strategies"]["file_level"]["verdict"] == "unchanged"
    md = (repo.path / "pr.md").read_text()
    assert "## Head vs base: golden/shop/queries.yaml" in md and "| fixed_size | " in md and "FAIL" in md


def test_an_edited_query_is_reported_as_changed_and_not_paired(repo: pytest.Pytester) -> None:
    golden = repo.path / "golden" / "shop" / "queries.yaml"
    golden.write_text(golden.read_text().replace("compute the total price of an order after a discount",
                                                 "what does an order cost once the discount is applied"))
    git(repo, "commit", "-qam", "reword a query")
    result = run(repo, "--chunkeval-base=HEAD~1", "-k", "vs-base")
    result.assert_outcomes(passed=2)
    cmp = comparison(repo)
    assert cmp["queries"]["changed"] == ["order-total"]
    assert {s["paired_queries"] for s in cmp["strategies"].values()} == {1}
    result.stdout.fnmatch_lines(["*queries changed (text or relevance) since base, left out of the paired tests: order-total*"])


def test_an_unknown_ref_is_a_usage_error(repo: pytest.Pytester) -> None:
    result = run(repo, "--chunkeval-base=no-such-branch")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--chunkeval-base no-such-branch: no such commit or ref in *"])


def test_a_base_on_another_corpus_is_refused_before_any_item_runs(repo: pytest.Pytester) -> None:
    orders = repo.path / "golden" / "shop" / "corpus" / "orders.py"
    orders.write_text(orders.read_text() + "\n\ndef refund(order):\n    return -order_total(order)\n")
    git(repo, "commit", "-qam", "a corpus file grows")
    result = run(repo, "--chunkeval-base=HEAD~1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "--chunkeval-base HEAD~1 was not made like this run" in err
    assert "golden/shop/queries.yaml corpus: base " in err and "files that differ: orders.py" in err


def test_a_strategy_left_out_on_head_is_not_reported_as_removed(repo: pytest.Pytester) -> None:
    result = run(repo, "--chunkeval-base=main", "--chunkeval-strategies=file_level", "--chunkeval-markdown=pr.md")
    assert result.ret == 0
    assert set(comparison(repo)["strategies"]) == {"file_level"}  # fixed_size was only not selected
    gone = "removed: evaluated on base, not on head"
    assert gone not in result.stdout.str() and gone not in (repo.path / "pr.md").read_text()


def test_with_a_base_a_lost_query_is_evidence_and_the_comparison_decides(repo: pytest.Pytester) -> None:
    """With k=1 the 30-character windows lose queries that the 120-character ones found. Under a strict record
    (every query recorded as found) the query items of a run with a base still never fail: they are xfailed with
    their rank on base, and the comparison's hit test weighs them (two queries cannot be significant: ok)."""
    assert run(repo, "-o", "chunkeval_k=1", "--chunkeval-accept-misses").ret == 0
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "record")
    path = repo.path / "strategies" / "fixed_size.py"
    path.write_text(path.read_text().replace("max_chunk_size=120, overlap=20", "max_chunk_size=30, overlap=5"))
    git(repo, "commit", "-qam", "smaller windows")
    result = run(repo, "-o", "chunkeval_k=1", "-o", "chunkeval_misses=fail", "--chunkeval-base=HEAD~1", "-rx",
                 "-o", "chunkeval_regression_size_increase=100")
    out = result.stdout.str()
    fixed = comparison(repo)["strategies"]["fixed_size"]
    lost = [q["id"] for q in fixed["lost"]]
    assert lost, "the smaller windows lost no query at k=1: nothing to show"
    for qid in lost:
        assert f"::fixed_size::{qid} - lost against the base (on base HEAD~1: rank 1): evidence for " in out
    assert fixed["hits"]["lost"] == len(lost) and fixed["hits"]["gained"] == len(fixed["gained"])
    assert fixed["hits"]["p_adjusted"] is not None and not fixed["hits"]["regressed"]
    assert result.ret == 0 and "VERDICT: PASS" in out
    assert "missed queries are xfailed as evidence" in out
