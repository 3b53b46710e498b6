"""The ``chunkeval`` command (also ``python -m pytest_chunkeval``): one parser, one subcommand per area.

Each area module adds its own subparser with ``add_parser(subparsers)`` and sets ``handler``; this module only
dispatches, so an area can be read (and tested) on its own.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from pytest_chunkeval.commands import frontier as frontier_cli
from pytest_chunkeval.commands import run as run_command
from pytest_chunkeval.commands.calibrate import cli as calibrate_cli
from pytest_chunkeval.commands.github import cli as github_cli
from pytest_chunkeval.commands.golden import cli as golden_cli
from pytest_chunkeval.commands.init import cli as init_cli


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="chunkeval", description="pytest-chunkeval tools")
    areas = top.add_subparsers(dest="area", required=True)
    run_command.add_parser(areas)
    golden_cli.add_parser(areas)
    github_cli.add_parser(areas)
    init_cli.add_parser(areas)
    calibrate_cli.add_parser(areas)
    frontier_cli.add_parser(areas)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    given = list(sys.argv[1:] if argv is None else argv)
    if not given:  # a first try: what the command does, not a usage error
        parser().print_help()
        return 0
    if given[0] == "run":  # pytest's arguments, passed on as they are (argparse would read them as its own)
        return run_command.main(given[1:])
    args = parser().parse_args(given)
    return int(args.handler(args, given))
