"""tools/near_null_prs.py without an evaluation: each pull request changes one parameter of the strategy file as
``chunkeval init`` writes it and keeps the strategy working and lossless, the Evaluate step is found in action.yml
with its inputs expanded, and the intervals of the red rate are right."""
from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from tool_modules import load_tool

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "pytest_chunkeval" / "commands" / "init" / "templates" / "my_strategy.py"


def _tool() -> ModuleType:
    return load_tool("near_null_prs")


SAMPLE = '''\
/// Parse a level.
///
/// Case is ignored.
fn parse(s: &str) -> Level {
    match s {
        "info" => Level::Info,
        _ => Level::Warn,
    }
}


// Two blank lines above.
fn other() {}
''' * 40


def test_every_pull_request_changes_its_strategy_file_and_keeps_it_a_lossless_strategy() -> None:
    tool = _tool()
    prs = tool.pull_requests()
    assert sum(p.kind == "near-null" for p in prs) >= 10 and {p.kind for p in prs} == {"near-null", "real-change"}
    assert len({p.name for p in prs}) == len(prs)
    sources = {tool.EXAMPLE_FILE: TEMPLATE.read_text(), tool.WINDOWS_FILE: tool.WINDOWS_SOURCE}
    for pr in prs:
        before = sources[pr.file]
        after = pr.edit(before, pr.name)
        assert after != before, pr.name
        # Without the decorator: the factory is a plain function, and nothing is registered in this process.
        namespace: dict[str, Any] = {}
        exec(compile(after.replace("\n@strategy\n", "\n"), pr.name, "exec"), namespace)  # noqa: S102
        made = namespace[pr.strategy]()
        chunks = made.chunk("lib.rs", SAMPLE)
        assert chunks and max(made.measure(c.text) for c in chunks) <= made.limit, pr.name
        covered = {line for c in chunks for line in range(c.start_line, c.end_line + 1)}
        lines = SAMPLE.splitlines()
        missing = [i + 1 for i, line in enumerate(lines) if line.strip() and i + 1 not in covered]
        assert not missing, (pr.name, missing[:5])


def test_a_constant_that_is_not_there_once_is_refused() -> None:
    tool = _tool()
    with pytest.raises(SystemExit, match="MAX_CHARS"):
        tool.set_constant("MAX_CHARS", 600)("MAX_CHARS = 1\nMAX_CHARS = 2\n", "x.py")


def test_the_evaluate_step_is_read_from_the_action_and_its_inputs_expanded() -> None:
    tool = _tool()
    step = tool.evaluate_step(ROOT / "action.yml")
    assert "chunkeval" in step["run"] and "GITHUB_OUTPUT" in step["run"]
    values = {name: "" for name in step["inputs"]} | {"base-ref": "abc123", "pytest-args": "-k x"}
    env = {k: tool.expand_inputs(v, values, k) for k, v in step["env"].items()}
    assert env["BASE_REF"] == "abc123" and env["PYTEST_ARGS"] == "-k x"
    with pytest.raises(SystemExit, match="github.job"):
        tool.expand_inputs("${{ github.job }}", values, "env.X")


@pytest.mark.parametrize(("k", "n", "low", "high"), [(0, 48, 0.0, 0.0740), (2, 48, 0.0051, 0.1425),
                                                     (5, 10, 0.1871, 0.8129), (48, 48, 0.9260, 1.0)])
def test_clopper_pearson_matches_the_exact_interval(k: int, n: int, low: float, high: float) -> None:
    lo, hi = _tool().clopper_pearson(k, n)
    assert lo == pytest.approx(low, abs=2e-4) and hi == pytest.approx(high, abs=2e-4)


def test_wilson_is_inside_zero_one_and_around_the_rate() -> None:
    lo, hi = _tool().wilson(2, 48)
    assert 0 < lo < 2 / 48 < hi < 1
    assert lo == pytest.approx(0.0115, abs=2e-4) and hi == pytest.approx(0.1398, abs=2e-4)
