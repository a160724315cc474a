"""One accepted price observation for the tests that write a small store of their own (the
price page's window, history table sorting, the dataset download)."""

from __future__ import annotations

import datetime as dt

from computeatlas.cloud.observations import Observation


def observation(
    provider: str,
    day: str,
    usd: float,
    *,
    instance: str | None = None,
    pricing: str = "on_demand",
    accelerator: str = "acme-a1",
    run: str = "r1",
) -> Observation:
    """An accepted on-demand-shaped observation of one ``accelerator`` (variant pcie-80gb, one
    per instance) at ``usd`` USD an hour, collected at 06:00 UTC on ``day`` (``YYYY-MM-DD``)
    from ``https://<provider>.example/pricing``; the instance is ``<provider>-1x`` unless given."""
    return Observation(
        provider=provider,
        instance_type=instance or f"{provider}-1x",
        region="r1",
        pricing=pricing,
        amount=usd,
        currency="USD",
        unit="hour",
        collected=dt.datetime.fromisoformat(day + "T06:00:00+00:00"),
        source_url=f"https://{provider}.example/pricing",
        via="test",
        accelerator=accelerator,
        variant="pcie-80gb",
        accelerators=1,
        per_accelerator_hour=usd,
        run=run,
    )
