"""Names people use → ids: exact id, alias, name; ambiguity listed; never a substring match."""

from __future__ import annotations

import pytest

from computeatlas.core.catalog import Catalog
from computeatlas.silicon import resolve
from tests.comparedata import compare_catalog, compare_data  # noqa: F401  (fixtures)


@pytest.mark.parametrize(
    ("text", "ident", "tier"),
    [
        ("nvidia-h100-sxm", "nvidia-h100-sxm", "id"),
        ("NVIDIA-H100-SXM", "nvidia-h100-sxm", "id"),
        ("H100 SXM5 80GB", "nvidia-h100-sxm", "alias"),
        ("h100 sxm", "nvidia-h100-sxm", "alias"),
        ("Trn3", "aws-trainium-3", "alias"),
        ("trn3", "aws-trainium-3", "alias"),
        ("Ironwood", "google-tpu-v7", "alias"),
        ("TPU7x", "google-tpu-v7", "alias"),
        ("tpu-v7", "google-tpu-v7", "alias"),  # separators are equivalent
        ("GB200", "nvidia-gb200", "alias"),
        ("B200", "nvidia-b200", "alias"),
        ("NVIDIA H100 PCIe 80GB", "nvidia-h100-pcie", "name"),
    ],
)
def test_real_names_resolve(real_catalog: Catalog, text: str, ident: str, tier: str) -> None:
    found = resolve.resolve(real_catalog, text)
    assert found.status == "found"
    assert found.match is not None and found.match.id == ident
    assert found.matched_by == tier


def test_h100_is_ambiguous_between_sxm_and_pcie(real_catalog: Catalog) -> None:
    found = resolve.resolve(real_catalog, "H100")
    assert found.status == "ambiguous" and found.match is None
    assert {c.id for c in found.candidates} == {"nvidia-h100-sxm", "nvidia-h100-pcie"}
    with pytest.raises(resolve.AmbiguousName) as exc:
        resolve.resolve_id(real_catalog, "h100")
    assert "nvidia-h100-sxm" in exc.value.message and "nvidia-h100-pcie" in exc.value.message


@pytest.mark.parametrize("text", ["GB20", "H10", "B2", "Trn", "TPU", "nvidia"])
def test_no_substring_matches(real_catalog: Catalog, text: str) -> None:
    assert resolve.resolve(real_catalog, text).status == "unknown"


def test_gb200_is_not_b200(real_catalog: Catalog) -> None:
    assert resolve.resolve_id(real_catalog, "GB200") == "nvidia-gb200"
    assert resolve.resolve_id(real_catalog, "gb200 superchip") == "nvidia-gb200"
    assert resolve.resolve_id(real_catalog, "B200") == "nvidia-b200"


def test_unknown_suggests_closest_ids(compare_catalog: Catalog) -> None:
    found = resolve.resolve(compare_catalog, "acme-a3")
    assert found.status == "unknown"
    assert {c.id for c in found.suggestions} >= {"acme-a1", "acme-a2"}
    with pytest.raises(resolve.UnknownName) as exc:
        resolve.resolve_id(compare_catalog, "acme-a3")
    assert exc.value.message.startswith("No accelerator with id 'acme-a3'")
    assert "acme-a1" in exc.value.message


def test_shared_alias_lists_all_parts(compare_catalog: Catalog) -> None:
    found = resolve.resolve(compare_catalog, "ACME")
    assert found.status == "ambiguous"
    assert [c.id for c in found.candidates] == ["acme-a1", "acme-a2"]


def test_alias_is_matched_whole(compare_catalog: Catalog) -> None:
    assert resolve.resolve_id(compare_catalog, "acme one") == "acme-a1"
    assert resolve.resolve(compare_catalog, "one").status == "unknown"
    assert resolve.resolve(compare_catalog, "A").status == "unknown"


@pytest.mark.parametrize("text", ["", "   ", "x" * (resolve.MAX_NAME + 1)])
def test_empty_or_overlong_name_is_invalid(compare_catalog: Catalog, text: str) -> None:
    with pytest.raises(resolve.InvalidName):
        resolve.resolve(compare_catalog, text)
