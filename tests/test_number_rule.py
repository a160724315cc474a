"""The page number rule in :mod:`computeatlas.core.presentation`: figures as stated with
thousands separators, conversions and derived figures at three significant figures, ratios
as "N× higher" with the larger side named, and which disagreements earn a table badge."""

from __future__ import annotations

import pytest

from computeatlas.core.claims import MemorySpec
from computeatlas.core.numbers import (
    figure_text,
    grouped,
    page_text,
    ratio_text,
    ratio_words,
    same_figure_other_unit,
    sig3,
    stated_in_other_unit,
)
from computeatlas.core.presentation import dispute_to_weigh


@pytest.mark.parametrize(
    ("stated", "shown"),
    [
        ("3958 TFLOPS", "3,958 TFLOPS"),  # H100 SXM INT8 as NVIDIA prints it: digits kept, separator added
        ("144 GiB", "144 GiB"),  # Trainium 3 memory as AWS states it: the binary unit stays
        ("7380 GB/s", "7,380 GB/s"),  # TPU7x bandwidth as Google's table states it, not turned into TB/s
        ("4.9 TB/s", "4.9 TB/s"),
        ("2614.9 TFLOPS", "2,614.9 TFLOPS"),
        ("80e9", "80 billion"),  # H100 transistors as the record writes them
        ("20000 W", "20,000 W"),
    ],
)
def test_a_stated_figure_keeps_its_unit_and_gains_separators(stated: str, shown: str) -> None:
    assert figure_text(stated) == shown


def test_conversions_have_three_significant_figures_and_numbers_have_separators() -> None:
    assert sig3(144 * 2**30 / 1e9) == "155"  # 154.618822656 GB
    assert sig3(32 * 2**30 / 1e9) == "34.4"  # 34.359738368 GB
    assert sig3(0.54612) == "0.546"
    assert sig3(12345.6) == "12,300"
    assert grouped(20000) == "20,000" and grouped(2614.9) == "2,614.9"


def test_a_table_cell_is_exact_for_decimal_prefixes_and_rounded_for_conversions() -> None:
    assert not stated_in_other_unit("7380 GB/s", "TB/s") and page_text(7.38, "7380 GB/s", "TB/s") == "7.38"
    assert not stated_in_other_unit("2.52 PFLOPS", "TFLOPS") and page_text(2520, "2.52 PFLOPS", "TFLOPS") == "2,520"
    assert stated_in_other_unit("144 GiB", "GB") and page_text(144 * 2**30 / 1e9, "144 GiB", "GB") == "155"


def test_ratios_name_the_larger_side_and_never_fall_below_one() -> None:
    # B200 dense FP8 4,500 TFLOPS against H100 SXM 1,979: 2.27× (4500 / 1979 = 2.2739)
    assert ratio_words("B200", 4500, "H100", 1979) == "B200: 2.27× higher than H100"
    assert ratio_words("H100", 1979, "B200", 4500) == "B200: 2.27× higher than H100"
    assert ratio_text(0.546) == "1.83× lower" and ratio_text(1.83) == "1.83× higher" and ratio_text(1.0) == "same"
    with pytest.raises(ValueError):
        ratio_text(0)


def _memory(primary_source: str, *others: tuple[str, str]) -> MemorySpec:
    return MemorySpec.model_validate(
        {
            "state": "published",
            "value": "144 GiB",
            "basis": "chip",
            "source": primary_source,
            "primary_reason": "the maker's table" if others else None,
            "other_claims": [{"value": v, "source": s} for v, s in others],
        }
    )


KINDS = {"aws": "vendor", "aws-blog": "vendor", "press": "press"}


def test_one_figure_in_two_units_is_not_a_dispute_to_weigh() -> None:
    assert same_figure_other_unit("144 GiB", "144 GB")
    assert not same_figure_other_unit("7380 GB/s", "7.3 TB/s")
    assert not dispute_to_weigh(_memory("aws", ("144 GB", "press")), KINDS)


def test_the_table_badge_is_for_maker_against_maker_or_no_maker_source() -> None:
    assert not dispute_to_weigh(_memory("aws", ("128 GB", "press")), KINDS)  # press against the maker: a note only
    assert dispute_to_weigh(_memory("aws", ("128 GB", "aws-blog")), KINDS)  # the maker against the maker
    assert dispute_to_weigh(_memory("press", ("128 GB", "press")), KINDS)  # no maker source behind the figure
    assert not dispute_to_weigh(_memory("aws"), KINDS)  # nothing disputed
