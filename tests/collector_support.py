"""Readings of the collector tests' example source: examplecloud's ``1x L4`` (one GPU, so an
amount is per GPU-hour), placed by the fixture instance table ``tests/fixtures/prices/instances``."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from pathlib import Path

from computeatlas.cloud.instances import load_instances
from computeatlas.cloud.observations import Observation

TABLE = load_instances(Path(__file__).parent / "fixtures" / "prices" / "instances")
"""The fixture instance table: it places examplecloud's ``1x L4`` on one NVIDIA L4."""


def example_readings(prices: Iterable[tuple[str, float]], when: dt.datetime) -> list[Observation]:
    """One on-demand USD-per-hour reading of examplecloud's ``1x L4`` per ``(region, amount)``,
    collected at ``when`` through the collector ``example``."""
    return [
        Observation(
            provider="examplecloud",
            instance_type="1x L4",
            region=region,
            pricing="on_demand",  # type: ignore[arg-type]
            amount=amount,
            currency="USD",
            unit="hour",  # type: ignore[arg-type]
            collected=when,
            source_url="https://examplecloud.example/pricing",
            via="collector example",
        )
        for region, amount in prices
    ]
