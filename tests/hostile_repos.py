"""Repositories with the test setups real projects have, each of which used to stop an evaluation before it began.

Each setup is what a popular project's configuration does to pytest: a conftest that imports the project or a test
dependency nobody evaluating chunking installs, ``addopts`` naming a plugin this environment lacks, doctests of
every module, warnings as errors, strict xfail, and a repository with no Python at all. The code is small and
documented (``chunkeval init`` writes its golden suite from the docstrings), so an evaluation of it takes seconds.
"""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from team_repo import git

IDENTITY = {"GIT_AUTHOR_NAME": "Dev", "GIT_AUTHOR_EMAIL": "dev@example.test", "GIT_COMMITTER_NAME": "Dev",
            "GIT_COMMITTER_EMAIL": "dev@example.test"}

PY_CODE = '''\
"""Prices and baskets of a small shop."""


def add_sales_tax(net: float, rate: float) -> float:
    """Return the gross price: the net price with the sales tax rate added.

    >>> import package_that_is_not_installed  # fails wherever doctests of this module run
    """
    return round(net * (1 + rate), 2)


def parse_price_line(line: str) -> tuple[str, float]:
    """Split a price list line such as 'apples: 1.20' into the article name and its price."""
    name, price = line.split(":")
    return name.strip(), float(price)


class Basket:
    """Collect the articles a customer buys and compute what they owe."""

    def __init__(self) -> None:
        self.items: list[tuple[str, float]] = []

    def add(self, name: str, price: float) -> None:
        """Put one article with its price into the basket."""
        self.items.append((name, price))

    def total(self) -> float:
        """Sum the prices of every article in the basket."""
        return round(sum(price for _, price in self.items), 2)


def apply_voucher(total: float, code: str) -> float:
    """Take a voucher's discount off a basket total; unknown voucher codes change nothing."""
    discounts = {"SPRING10": 0.10, "WELCOME5": 0.05}
    return round(total * (1 - discounts.get(code, 0.0)), 2)
'''

GO_CODE = '''\
package shop

import "strings"

// AddSalesTax returns the gross price: the net price with the sales tax rate added.
func AddSalesTax(net float64, rate float64) float64 {
	return net * (1 + rate)
}

// ParsePriceLine splits a price list line such as "apples: 1.20" into the article name and its price text.
func ParsePriceLine(line string) (string, string) {
	parts := strings.SplitN(line, ":", 2)
	return strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
}

// Basket collects the articles a customer buys.
type Basket struct {
	Prices []float64
}

// Total sums the prices of every article in the basket.
func (b *Basket) Total() float64 {
	sum := 0.0
	for _, p := range b.Prices {
		sum += p
	}
	return sum
}

// ApplyVoucher takes a voucher's discount off a basket total; unknown voucher codes change nothing.
func ApplyVoucher(total float64, code string) float64 {
	switch code {
	case "SPRING10":
		return total * 0.9
	case "WELCOME5":
		return total * 0.95
	}
	return total
}
'''

PYPROJECT = '''\
[project]
name = "shop"
version = "0.1.0"

[tool.pytest.ini_options]
testpaths = ["tests"]
{extra}
'''

#: setup -> (files beyond the code, pytest settings of pyproject.toml). Each would stop `pytest --chunkeval`.
SETUPS: dict[str, tuple[dict[str, str], str]] = {
    # The project's tests import the project and its test dependencies, none of them installed here.
    "conftest-imports-absent": ({"tests/conftest.py": "import package_that_is_not_installed  # noqa: F401\n",
                                 "conftest.py": "import shop_test_helpers  # noqa: F401  (the project's own)\n"}, ""),
    # pytest-cov and pytest-xdist in the project's dev environment, not in this one: "unrecognized arguments".
    "addopts-absent-plugin": ({}, 'addopts = "--cov=shop -n auto"\nrequired_plugins = ["pytest-cov"]'),
    # Doctests of every module: the module's doctest imports what is not installed.
    "doctest-modules": ({}, 'addopts = "--doctest-modules"'),
    # Warnings as errors (the caller also makes a dependency of this package warn).
    "filterwarnings-error": ({}, 'filterwarnings = ["error"]'),
    "xfail-strict": ({}, "xfail_strict = true"),
    # Go only: no Python file, no pyproject.toml (init writes a pytest.ini).
    "go-no-python": ({"go.mod": "module example.com/shop\n\ngo 1.22\n", "shop.go": GO_CODE}, ""),
}


def write_repo(root: Path, setup: str, env: Mapping[str, str]) -> None:
    """A git repository of ``setup`` with one commit."""
    files, settings = SETUPS[setup]
    root.mkdir(parents=True)
    if setup != "go-no-python":
        (root / "src" / "shop").mkdir(parents=True)
        (root / "src" / "shop" / "__init__.py").write_text(PY_CODE)
        (root / "tests").mkdir()
        (root / "tests" / "test_shop.py").write_text("from shop import add_sales_tax\n\n\ndef test_tax():\n"
                                                      "    assert add_sales_tax(10.0, 0.2) == 12.0\n")
        (root / "pyproject.toml").write_text(PYPROJECT.format(extra=settings))
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    env = {**env, **IDENTITY}
    git(root, "init", "--quiet", env=env)
    git(root, "add", "-A", env=env)
    git(root, "commit", "--quiet", "-m", f"A shop ({setup})", env=env)


def next_commands(init_output: str) -> list[list[str]]:
    """The commands ``chunkeval init`` printed under "Next:", as words (comments and notes left out)."""
    after = init_output.split("\nNext:\n", 1)[1]
    commands = []
    for line in after.splitlines():
        text = line.split("#", 1)[0].strip()
        if not line.startswith("  ") or not text or text.startswith("("):
            if line and not line.startswith(" "):
                break
            continue
        commands.append(shlex.split(text))
    return commands
