"""How much of the store our instance table places: the placed share per provider.

A stored observation is *placed* when our instance table names its accelerator (it may still
be held by another rule: a licence-included price is placed, then held), and *unplaced* when
it was held by the ``unplaced`` rule (the table has no row for the provider's instance name).
The share is counted over each observation's newest decision (the store's ``latest`` view),
so a re-import after a new instance row has raised it counts once.

Goal (written in the README): 95% of the hyperscalers' observations placed, 90% of all.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, Field

from computeatlas.cloud.store import Store


class ProviderPlacement(BaseModel):
    """One provider's observations: ``placed`` + ``unplaced`` = ``observations``; ``share`` is
    placed ÷ observations (0–1); ``missing`` lists the unplaced instance names, most frequent
    first, with their counts (the instance-table rows that would place them)."""

    provider: str
    kind: str = Field(description="the provider record's kind (hyperscaler, neocloud, …), or 'not recorded'")
    observations: int
    placed: int
    unplaced: int
    share: float
    missing: list[tuple[str, int]]


class PlacementReport(BaseModel):
    """The placed share per provider, for the hyperscalers together and overall."""

    providers: list[ProviderPlacement]
    hyperscaler_share: float | None = Field(description="placed ÷ observations over providers of kind hyperscaler; None without any")
    overall_share: float | None


def _share(placed: int, total: int) -> float | None:
    return placed / total if total else None


def placement(store: Store, kinds: Mapping[str, str], missing_listed: int = 3) -> PlacementReport:
    """Count placed and unplaced observations per provider in ``store`` (newest decision per
    observation). ``kinds`` maps provider ids to their record's kind (providers without a
    record are 'not recorded'); ``missing_listed`` unplaced names are listed per provider."""
    counts = store.query(
        "SELECT provider, list_contains(rules, 'unplaced') AS unplaced, count(*) AS n FROM latest GROUP BY ALL ORDER BY provider"
    )
    names = store.query(
        "SELECT provider, instance_type, count(*) AS n FROM latest WHERE list_contains(rules, 'unplaced') "
        "GROUP BY ALL ORDER BY provider, n DESC, instance_type"
    )
    by: dict[str, dict[bool, int]] = {}
    for row in counts:
        by.setdefault(row["provider"], {False: 0, True: 0})[bool(row["unplaced"])] = int(row["n"])
    listed: dict[str, list[tuple[str, int]]] = {}
    for row in names:
        if len(listed.setdefault(row["provider"], [])) < missing_listed:
            listed[row["provider"]].append((row["instance_type"], int(row["n"])))
    providers = [
        ProviderPlacement(
            provider=p,
            kind=kinds.get(p, "not recorded"),
            observations=n[False] + n[True],
            placed=n[False],
            unplaced=n[True],
            share=n[False] / (n[False] + n[True]),
            missing=listed.get(p, []),
        )
        for p, n in by.items()
    ]
    providers.sort(key=lambda p: (p.kind != "hyperscaler", -p.observations, p.provider))
    hyper = [p for p in providers if p.kind == "hyperscaler"]
    return PlacementReport(
        providers=providers,
        hyperscaler_share=_share(sum(p.placed for p in hyper), sum(p.observations for p in hyper)),
        overall_share=_share(sum(p.placed for p in providers), sum(p.observations for p in providers)),
    )


__all__ = ["PlacementReport", "ProviderPlacement", "placement"]
