"""The record of collection attempts: one file per attempt, read back newest first, damage named."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pydantic
import pytest

from computeatlas.cloud.collection_log import Attempt, attempts, last, record, sources

T0 = dt.datetime(2026, 12, 4, 6, 0, tzinfo=dt.UTC)


def _attempt(hours: int, result: str = "imported", **kw: object) -> Attempt:
    start = T0 + dt.timedelta(hours=hours)
    return Attempt.model_validate({"source": "aws", "started": start, "finished": start + dt.timedelta(seconds=42), "result": result, **kw})


def test_attempts_are_read_back_newest_first_with_the_last_success(tmp_path: Path) -> None:
    record(tmp_path, _attempt(0, rows_read=1200, accepted=1180, held=20, run="r1"))
    record(tmp_path, _attempt(6, "failed", error="https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/index.json: HTTP 503"))
    record(tmp_path, _attempt(12, "skipped", reason="no API key"))
    found, problems = attempts(tmp_path, "aws")
    assert problems == []
    assert [a.result for a in found] == ["skipped", "failed", "imported"]
    success = last(found, succeeded=True)
    assert success is not None and success.run == "r1" and success.accepted == 1180 and success.seconds == 42.0
    assert last(found) == found[0]
    assert sources(tmp_path) == ["aws"]


def test_a_damaged_record_is_named_and_hides_nothing_else(tmp_path: Path) -> None:
    good = record(tmp_path, _attempt(0))
    (good.parent / "20261204T120000.000000Z-cut.json").write_text('{"source": "aws", "sta', encoding="utf-8")
    found, problems = attempts(tmp_path, "aws")
    assert len(found) == 1 and len(problems) == 1
    assert "20261204T120000.000000Z-cut.json" in str(problems[0])


def test_reading_is_bounded_to_the_newest(tmp_path: Path) -> None:
    for hours in range(5):
        record(tmp_path, _attempt(hours * 6, accepted=hours))
    found, _ = attempts(tmp_path, "aws", keep=2)
    assert [a.accepted for a in found] == [4, 3]


def test_a_source_name_that_could_leave_the_folder_is_refused() -> None:
    with pytest.raises(pydantic.ValidationError, match="source"):
        _attempt(0, source="../etc")
    assert attempts(Path("/nonexistent"), "aws") == ([], [])
