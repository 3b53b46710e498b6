"""Command line entry point for the fulfilment worker and its admin chores.

    fulfilment run                 # start consuming the queue
    fulfilment queue-stats         # depth, oldest due message, dead letters
    fulfilment replay-dead --limit 50
    fulfilment sales-report --day 2024-05-31 --out report.csv
"""
from __future__ import annotations

import csv
import json
import logging
import os
import sys
from datetime import date, datetime, timezone

import click
import psycopg
import redis

from .notifications import Mailer
from .payments import PaymentClient
from .tasks import DEAD_LETTER_KEY, QUEUE_KEY, TaskContext, Worker


def _env(name: str) -> str:
    try:
        return os.environ[name]
    except KeyError:
        raise click.ClickException(f"environment variable {name} is not set") from None


def build_context() -> TaskContext:
    return TaskContext(
        db=psycopg.connect(_env("DATABASE_URL"), autocommit=True),
        queue=redis.Redis.from_url(_env("REDIS_URL")),
        payments=PaymentClient(_env("PSP_URL"), _env("PSP_API_KEY")),
        mailer=Mailer(_env("MAIL_API_URL"), _env("MAIL_API_KEY")),
    )


@click.group()
@click.option("--verbose", "-v", is_flag=True, help="Log at DEBUG level.")
def main(verbose: bool) -> None:
    logging.basicConfig(
        level=logging.DEBUG if verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )


@main.command()
@click.option("--idle-sleep", default=0.5, show_default=True, help="Seconds to wait when the queue is empty.")
def run(idle_sleep: float) -> None:
    """Consume fulfilment tasks until interrupted."""
    Worker(build_context(), idle_sleep=idle_sleep).run()


@main.command("queue-stats")
def queue_stats() -> None:
    """Print how many tasks are waiting, how late the oldest one is, and dead letters."""
    queue = redis.Redis.from_url(_env("REDIS_URL"))
    now = datetime.now(timezone.utc).timestamp()
    depth = queue.zcard(QUEUE_KEY)
    overdue = queue.zcount(QUEUE_KEY, 0, now)
    oldest = queue.zrange(QUEUE_KEY, 0, 0, withscores=True)
    lag = max(0.0, now - oldest[0][1]) if oldest else 0.0
    click.echo(f"queued={depth} overdue={overdue} oldest_lag_s={lag:.0f} dead={queue.llen(DEAD_LETTER_KEY)}")


@main.command("replay-dead")
@click.option("--limit", default=100, show_default=True)
@click.option("--topic", default=None, help="Only replay messages for this topic.")
@click.confirmation_option(prompt="Move dead-lettered tasks back onto the queue?")
def replay_dead(limit: int, topic: str | None) -> None:
    """Move dead-lettered messages back onto the main queue with a fresh delivery count."""
    queue = redis.Redis.from_url(_env("REDIS_URL"))
    moved = skipped = 0
    for _ in range(limit):
        raw = queue.rpop(DEAD_LETTER_KEY)
        if raw is None:
            break
        message = json.loads(raw)
        if topic and message["topic"] != topic:
            queue.lpush(DEAD_LETTER_KEY, raw)
            skipped += 1
            continue
        message["deliveries"] = 0
        queue.zadd(QUEUE_KEY, {json.dumps(message): datetime.now(timezone.utc).timestamp()})
        moved += 1
    click.echo(f"replayed {moved} message(s), left {skipped} in place")


@main.command("sales-report")
@click.option("--day", type=click.DateTime(formats=["%Y-%m-%d"]), default=str(date.today()))
@click.option("--out", type=click.Path(dir_okay=False, writable=True), default="-")
def sales_report(day: datetime, out: str) -> None:
    """Write one day's paid orders per title as CSV (isbn, title, copies, revenue)."""
    with psycopg.connect(_env("DATABASE_URL")) as conn:
        rows = conn.execute(
            """
            SELECT l.isbn, l.title, SUM(l.quantity) AS copies,
                   SUM(l.quantity * l.unit_price_minor) AS revenue_minor
            FROM orders o JOIN order_lines l ON l.order_id = o.id
            WHERE o.status IN ('paid', 'picking', 'shipped', 'delivered')
              AND o.created_at::date = %s
            GROUP BY l.isbn, l.title
            ORDER BY revenue_minor DESC
            """,
            (day.date(),),
        ).fetchall()
    handle = sys.stdout if out == "-" else open(out, "w", newline="")
    try:
        writer = csv.writer(handle)
        writer.writerow(["isbn", "title", "copies", "revenue"])
        for isbn, title, copies, revenue_minor in rows:
            writer.writerow([isbn, title, copies, f"{revenue_minor / 100:.2f}"])
    finally:
        if handle is not sys.stdout:
            handle.close()


if __name__ == "__main__":
    main()
