"""What a run evaluates: its golden suites and its strategies, found, checked and built once. What the checks find
is said in words by :mod:`pytest_chunkeval.output.usage`."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pytest_chunkeval.chunking.strategy_files import discover_suites
from pytest_chunkeval.core.golden import GoldenSuite, load_golden
from pytest_chunkeval.output import usage
from pytest_chunkeval.run.parts.context import ModelContext, ModelPart

if TYPE_CHECKING:
    from pytest_chunkeval.chunking.contract import Contract, Registration
    from pytest_chunkeval.chunking.strategy_sources import StrategySet


class Catalog(ModelPart):
    """The suites and strategies of one run (of one model, in a run of several: they share the loaded suites, and
    each model's catalog builds its own strategies)."""

    def __init__(self, context: ModelContext, suites: dict[Path, GoldenSuite] | None = None) -> None:
        super().__init__(context)
        self.suites: dict[Path, GoldenSuite] = {} if suites is None else suites
        self.strategies: dict[str, Contract] = {}  # registration name -> its built strategy
        self.collected_suites: set[Path] = set()  # suite files collection has reached (pytest's or the plugin's)
        self._discovered: list[Path] | None = None
        self._corpus_dirs: set[Path] | None = None
        self._packaged: list[Registration] | None = None

    def strategy_set(self) -> StrategySet:
        """Every strategy this project can run: the packages' (built-ins), the ini's grammars, the project's own
        files and conftests (pytest has imported those by the time collection asks), later replacing earlier."""
        from pytest_chunkeval.chunking.strategy_sources import load, packaged

        o = self.options
        if self._packaged is None:
            self._packaged = packaged()
        return load(o.strategies_dir, o.grammars, o.grammar_configs, root=o.rootdir, conftest_root=o.rootdir,
                    shipped=self._packaged)

    def load_strategies(self) -> dict[str, Registration]:
        """The strategies this run evaluates: those selected (``--chunkeval-strategies``; all by default) and the
        baseline."""
        return self.strategy_set().select(self.options.strategy_names, self.options.baseline, self.options.grid)

    def check_setup(self) -> list[str]:
        """Raise ``ValueError`` for a run that would evaluate nothing or name what does not exist, with where it
        looked and how to fix it; else the notes to print (replaced strategies)."""
        o = self.options
        if not self.suite_paths():
            raise ValueError(usage.no_golden_suite(o.golden_patterns, o.rootdir))
        found = self.strategy_set()
        if not found.available:
            raise ValueError(usage.no_strategy(o.strategies_dir))
        problems = self._selection_problems(found)
        if problems:
            raise ValueError("\n".join(problems))
        later = found.left_for_request(o.strategy_names, o.grid)
        extra = [usage.on_request(later)] if later else []
        return [*found.notes, *extra]

    def _selection_problems(self, found: StrategySet) -> list[str]:
        """Every name in the selection, baseline, grid and gate settings that exists nowhere, one line each."""
        o = self.options
        problems = []
        folders = [n for n in o.strategy_names if n not in found.available and (o.rootdir / n).is_dir()]
        if folders:  # the setting's name before it selected strategies by name
            problems.append(usage.strategies_are_folders(folders))
        else:
            try:
                found.select(o.strategy_names, "", {})
            except ValueError as exc:
                problems.append(usage.setting_problem(usage.STRATEGIES, exc))
        selected = not problems
        try:
            names = found.labels(o.grid)
        except ValueError as exc:
            raise ValueError(usage.setting_problem(usage.GRID, exc)) from None
        if o.baseline not in names:
            points = [n for n in names if n not in found.available]
            problems.append(usage.unknown_baseline(o.baseline, found.known(), points))
        elif selected:
            try:
                found.select(o.strategy_names, o.baseline, o.grid)
            except ValueError as exc:
                problems.append(usage.setting_problem(usage.BASELINE, exc))
        unknown = [n for n in o.gate_candidates if n != "all" and n not in names]
        if unknown:
            problems.append(usage.unknown_gate_candidates(unknown, found.known()))
        return problems

    def suite_paths(self) -> list[Path]:
        """The suites to evaluate: those named by --chunkeval-golden, else every suite the ini patterns find."""
        explicit = [p.resolve() for p in self.options.golden_paths]
        return explicit or self.discovered()

    def discovered(self) -> list[Path]:
        if self._discovered is None:
            self._discovered = discover_suites(self.options.rootdir, self.options.golden_patterns)
        return self._discovered

    def corpus_dirs(self) -> set[Path]:
        """Corpus folders of every known suite: data, never to be collected as tests."""
        if self._corpus_dirs is None:
            self._corpus_dirs = set()
            for path in {*self.discovered(), *(p.resolve() for p in self.options.golden_paths)}:
                try:
                    self._corpus_dirs.add(self.suite(path).corpus_dir)
                except Exception:  # reported when the suite itself is collected
                    self._corpus_dirs.add(path.parent / "corpus")
        return self._corpus_dirs

    def suite(self, path: Path) -> GoldenSuite:
        key = path.resolve()
        if key not in self.suites:
            self.suites[key] = load_golden(key, root=self.options.rootdir, outside=self.options.allow_outside_corpus,
                                           max_file_bytes=self.options.max_file_bytes)
        return self.suites[key]

    def strategy(self, reg: Registration) -> Contract:
        if reg.name not in self.strategies:
            self.strategies[reg.name] = reg.build()
        return self.strategies[reg.name]

    def label(self, name: str, mode: str) -> str:
        """The row label of ``name`` searched with ``mode`` in this run (results.row_label)."""
        from pytest_chunkeval.results.typed import row_label

        return row_label(name, mode, self.options.multi_mode)

    def suite_key(self, suite: GoldenSuite) -> str:
        """How the JSON report names a suite: its golden path relative to the project root."""
        from pytest_chunkeval.results.typed import suite_key

        return suite_key(suite.path, self.options.rootdir)
