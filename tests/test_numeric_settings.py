"""Every value of every numeric setting is one usage error or a value the run can use, never a traceback (issue 34,
item 5): ``inf``, ``-inf``, ``nan``, ``1e400``, a negative, zero, a non-integer where an integer belongs and a number
past the setting's sane maximum, from the command line, the ini file and a TOML file (the isolated run of
``chunkeval run`` reads TOML's own ``inf`` and ``1.5``, which used to end in an OverflowError or be cut to 1).

Each setting's range is written out here, not read from the table, so that a change of a bound is a change here too.
A value the setting takes gets past the settings to the next check, the missing golden suite.
"""
from __future__ import annotations

import math
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from pytest_chunkeval.run.isolation import NEUTRAL_INI, PROJECT_FLAG
from pytest_chunkeval.settings import SETTING, SETTINGS
from pytest_chunkeval.settings.project import ConfigError, ProjectConfig
from pytest_chunkeval.settings.setting import shown


class Range(NamedTuple):
    low: float
    high: float
    whole: bool = False  # an integer
    above: bool = False  # low itself excluded


RANGES = {
    "k": Range(1, 10_000, whole=True),
    "batch_size": Range(1, 65_536, whole=True),
    "chunk_timeout": Range(0, 86_400),
    "strategy_memory": Range(0, 1_048_576, whole=True),
    "max_fallback": Range(0, 1),
    "max_parse_errors": Range(0, 1),
    "max_file_bytes": Range(0, 10**12, whole=True),
    "max_chunks_per_file": Range(0, 100_000_000, whole=True),
    "gate_ndcg_gain": Range(-1, 100),
    "gate_recall_drop": Range(0, 1),
    "gate_size_increase": Range(0, 1_000),
    "regression_tolerance": Range(0, 1),
    "regression_alpha": Range(0, 1, above=True),
    "regression_size_increase": Range(0, 1_000),
    "embedder_dimensions": Range(0, 65_536, whole=True),
    "embedder_concurrency": Range(1, 256, whole=True),
    "embedder_timeout": Range(0, 3_600, above=True),
    "embedder_retries": Range(0, 50, whole=True),
    "embedder_window": Range(0, 10_000_000, whole=True),
    "embed_price": Range(0, 1_000_000),
    "embed_budget": Range(0, 1_000_000_000),
}
#: The values the issue lists, as a user writes them; past the maximum: the maximum and one more, and 10**23.
VALUES = ["inf", "-inf", "nan", "1e400", "-1", "0", "1.5", "past", "100000000000000000000000"]
USABLE = "--chunkeval found no golden suite"  # what a run with good settings and no suite stops at


def test_every_numeric_setting_has_its_range_here() -> None:
    numeric = {s.name for s in SETTINGS if s.kind.ini_type in ("int", "float") or s.name == "regression_alpha"}
    assert numeric == set(RANGES)


def _text(name: str, value: str) -> str:
    r = RANGES[name]
    return str(int(r.high) + 1 if r.whole else r.high + 1) if value == "past" else value


def takes(name: str, value: float) -> bool:
    r = RANGES[name]
    if not math.isfinite(value) or (r.whole and not float(value).is_integer()):
        return False
    return (r.low < value if r.above else r.low <= value) and value <= r.high


def _run(pytester: pytest.Pytester, *args: str) -> tuple[int, str]:
    result = pytester.runpytest("--chunkeval", "-p", "no:cacheprovider", *args)
    return result.ret, result.stdout.str() + result.stderr.str()


def _check(ret: int, output: str, name: str, accepted: bool) -> None:
    setting = SETTING[name]
    assert ret == pytest.ExitCode.USAGE_ERROR  # a usage error either way: the setting's, or the missing suite
    assert "Traceback" not in output and "INTERNALERROR" not in output
    errors = [line for line in output.splitlines() if line.startswith("ERROR: ")]
    assert len(errors) == 1, output
    if accepted:
        assert errors[0].startswith(f"ERROR: {USABLE}"), errors
    else:
        assert errors[0].startswith(f"ERROR: {setting.where} must be {setting.kind.noun}, got "), errors


CASES = [(name, value) for name in RANGES for value in VALUES]


@pytest.mark.parametrize(("name", "value"), CASES, ids=[f"{n}={v}" for n, v in CASES])
def test_each_value_is_one_usage_error_or_taken(pytester: pytest.Pytester, name: str, value: str) -> None:
    """From the command line where the setting has a flag, else from the ini file (``-o``)."""
    setting = SETTING[name]
    text = _text(name, value)
    args = [f"{setting.flag}={text}"] if setting.flag else ["-o", f"{setting.ini}={text}"]
    ret, output = _run(pytester, *args)
    _check(ret, output, name, takes(name, float(text)))


INI_CASES = [(name, value) for name in RANGES if SETTING[name].flag for value in ("inf", "nan", "1e400", "1.5")]


@pytest.mark.parametrize(("name", "value"), INI_CASES, ids=[f"{n}={v}" for n, v in INI_CASES])
def test_the_ini_file_gets_the_same_answer(pytester: pytest.Pytester, name: str, value: str) -> None:
    pytester.makeini(f"[pytest]\n{SETTING[name].ini} = {value}\n")
    ret, output = _run(pytester)
    _check(ret, output, name, takes(name, float(value)))


#: TOML's own numbers: ``inf``, ``nan`` and ``1e400`` are floats there (1e400 is read as inf), 1.5 a float and
#: 10**23 an integer; ``chunkeval run`` (an isolated run) reads them as they are.
TOML_CASES = [("k", v) for v in ("inf", "-inf", "nan", "1e400", "1.5", "100000000000000000000000", "-3", "10.0")]
TOML_CASES += [("batch_size", v) for v in ("inf", "1e400", "2.5")]
TOML_CASES += [("chunk_timeout", "inf"), ("chunk_timeout", "12"), ("gate_ndcg_gain", "nan"),
               ("regression_alpha", "inf"), ("regression_alpha", "'off'"), ("max_fallback", "-0.0")]


def _project(pytester: pytest.Pytester, line: str) -> Path:
    toml = pytester.path / "project" / "pyproject.toml"
    toml.parent.mkdir(exist_ok=True)
    toml.write_text(f"[tool.pytest.ini_options]\n{line}\n")
    return toml


def _isolated(toml: Path) -> list[str]:
    """The arguments ``chunkeval run`` gives pytest (isolation.pytest_args, less the plugin pytester loads anyway):
    pytest reads the neutral ini file, and only the run's own reader (pytest_chunkeval/settings/project.py) reads the
    project's file, with TOML's types."""
    return ["-c", str(NEUTRAL_INI), "--rootdir", str(toml.parent), "--noconftest", f"{PROJECT_FLAG}={toml}"]


@pytest.mark.parametrize(("name", "value"), TOML_CASES, ids=[f"{n}={v}" for n, v in TOML_CASES])
def test_a_toml_number_of_an_isolated_run(pytester: pytest.Pytester, name: str, value: str) -> None:
    toml = _project(pytester, f"{SETTING[name].ini} = {value}")
    ret, output = _run(pytester, *_isolated(toml))
    accepted = value == "'off'" or (value != "10.0" and takes(name, float(value)))  # 10.0 is a float, not an integer
    _check(ret, output, name, accepted)


def test_a_huge_integer_is_named_by_its_size(pytester: pytest.Pytester) -> None:
    """An integer of 300 digits is named by its size; one of 5,000 Python will not even print (``repr`` raises past
    4,300 digits)."""
    toml = _project(pytester, f"chunkeval_k = {'9' * 300}")
    ret, output = _run(pytester, *_isolated(toml))
    assert ret == pytest.ExitCode.USAGE_ERROR and "Traceback" not in output
    assert "must be an integer from 1 to 10,000, got an integer of 300 digits" in output
    assert shown(10 ** 5000) == "an integer of 5,001 digits"


def test_a_toml_integer_past_pythons_digit_limit_is_a_config_error(tmp_path: Path) -> None:
    """tomllib raises a plain ValueError for an integer of more than 4,300 digits, not its TOMLDecodeError."""
    toml = tmp_path / "pyproject.toml"
    toml.write_text(f"[tool.pytest.ini_options]\nchunkeval_k = {'9' * 5000}\n")
    with pytest.raises(ConfigError, match=r"pyproject.toml: not valid TOML \(Exceeds the limit"):
        ProjectConfig.locate(toml)


@pytest.mark.parametrize(("raw", "read"), [(" 7 ", 7), (7, 7), ("1_000", 1000)])
def test_an_integer_is_read_as_written(raw: Any, read: int) -> None:
    assert SETTING["k"].read(raw, Path()) == read


@pytest.mark.parametrize("raw", [True, 2.0, "2.0", "1e3", [3], None])
def test_an_integer_setting_takes_nothing_but_an_integer(raw: Any) -> None:
    from pytest_chunkeval.settings.setting import Invalid

    with pytest.raises(Invalid, match=r"^--chunkeval-k / ini chunkeval_k must be an integer from 1 to 10,000, got "):
        SETTING["k"].read(raw, Path())
