"""Where a price-table file came from: its upstream repository, path and commit, and the
commit's date (the collection time of every price in it), and errors that name a JSON path.

The genai-prices and LiteLLM tables are whole JSON files committed to git; the only date a
file carries is its commit's. :data:`KNOWN` lists the commits of the files we copied (by
file name, as the README of each copied price folder lists them; an excerpt keeps its file's
name); any other file needs its commit and date given (``--commit`` and ``--collected``).
"""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass
from pathlib import Path

from computeatlas.cloud.observations import InputFailed
from computeatlas.core.tabular import TableError


@dataclass(frozen=True)
class Provenance:
    """One file's upstream ``repo`` (owner/name), ``path`` in it, ``commit`` (hex, 7 or more
    digits), ``published`` (the commit's date, UTC) and ``feed`` (e.g. ``v1``/``v2``)."""

    repo: str
    path: str
    commit: str
    published: dt.datetime
    feed: str = ""

    @property
    def short(self) -> str:
        """The commit's first seven hex digits."""
        return self.commit[:7]

    @property
    def url(self) -> str:
        """The upstream file at its commit, on GitHub."""
        return f"https://github.com/{self.repo}/blob/{self.commit}/{self.path}"

    def via(self, what: str) -> str:
        """``what``, "published by YYYY-MM-DD (commit abc1234)"."""
        return f"{what}, published by {self.published.date().isoformat()} (commit {self.short})"


def _day(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)


GENAI_REPO, GENAI_V1, GENAI_V2 = "pydantic/genai-prices", "prices/data.json", "prices/new_data/v2/data.json"
TOKENCOST_REPO, TOKENCOST_PATH = "AgentOps-AI/tokencost", "tokencost/model_prices.json"

KNOWN: dict[str, Provenance] = {
    **{
        f"data-v1-{day}.json": Provenance(GENAI_REPO, GENAI_V1, sha, _day(day), "v1")
        for day, sha in (
            ("2025-06-23", "c56491a9"),
            ("2025-07-31", "f0effdcf"),
            ("2025-08-26", "d9dcd75f"),
            ("2025-09-29", "6e864856"),
            ("2025-10-27", "99922c2a"),
            ("2025-11-27", "ef8c10a9"),
            ("2025-12-31", "defd911c"),
            ("2026-01-28", "d2ad330f"),
            ("2026-02-25", "6104d558"),
            ("2026-03-30", "294ede56"),
            ("2026-04-30", "17095a8e"),
            ("2026-05-28", "52833271"),
            ("2026-06-30", "d6991375"),
            ("2026-07-25", "c885e328"),
        )
    },
    "data-v2-2026-08-21.json": Provenance(GENAI_REPO, GENAI_V2, "47df840a5ab10bbcffb8e5ac01b9899032245d1b", _day("2026-08-21"), "v2"),
    **{
        f"model_prices-{day}.json": Provenance(TOKENCOST_REPO, TOKENCOST_PATH, sha, _day(day))
        for day, sha in (
            ("2024-01-31", "f38877f45073f1be52064de9038238366440e4fc"),
            ("2024-04-11", "f6c853b802f079b3d1e21a5e6e23eaa4c32a1ec6"),
            ("2024-07-18", "e194a77c0411284a91bf3f20dc342648454a88b1"),
            ("2024-10-14", "74a4d5604d1ae948ec024cd7a2f0951ca7b0f53b"),
            ("2025-01-14", "226b3329b0de30511c7a52cb92dc9750d76c957f"),
            ("2025-05-07", "30c32a6ec32af987a8cf632002d3d613bc307a98"),
            ("2025-07-18", "23b960f95fe1e8e2195780a5066959bae260ebc5"),
            ("2025-09-01", "59042a13a4932cdade3f3f352a81b27ec4b2557a"),
        )
    },
}
"""Commit and date of every file copied from genai-prices and tokencost (their READMEs list them;
genai-prices gives eight hex digits of each v1 commit)."""


def provenance_of(
    path: Path, repo: str, upstream: str, commit: str | None = None, published: dt.datetime | None = None, feed: str = ""
) -> Provenance:
    """The provenance of ``path``: ``commit`` and ``published`` when given (both), else the
    :data:`KNOWN` entry of its file name, which must be of ``repo``. Raises :class:`InputFailed`
    naming the file when neither is there (no date is guessed)."""
    if commit or published:
        if not (commit and published) or len(commit) < 7 or any(c not in "0123456789abcdef" for c in commit.lower()):
            raise InputFailed([JsonInputError(str(path), "$", "give both the commit (7+ hex digits) and its date (--commit, --collected)")])
        return Provenance(repo, upstream, commit.lower(), published.astimezone(dt.UTC), feed)
    known = KNOWN.get(path.name)
    if known is None or known.repo != repo:
        raise InputFailed(
            [
                JsonInputError(
                    str(path),
                    "$",
                    f"no commit is known for a file of this name from {repo}: give --commit and "
                    "--collected (the commit's date), or keep the file's upstream name",
                )
            ]
        )
    return known


class JsonInputError(TableError):
    """A bad value of a JSON file: ``file`` and the JSON ``path`` (``$[3].models[12].prices.input_mtok``); ``line`` is 0."""

    def __init__(self, file: str, path: str, message: str, text: str | None = None) -> None:
        super().__init__(file, 0, path, message, text)

    def __str__(self) -> str:
        found = f" (found {self.text!r})" if self.text is not None else ""
        return f"{self.file}: JSON path {self.column}: {self.message}{found}"


def load(path: Path) -> object:
    """The parsed JSON of ``path``; :class:`InputFailed` naming the file (and line, column) when unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputFailed([JsonInputError(str(path), "$", f"cannot read the file: {exc.strerror}")]) from None
    except UnicodeDecodeError:
        raise InputFailed([JsonInputError(str(path), "$", "not UTF-8 text")]) from None
    except json.JSONDecodeError as exc:
        raise InputFailed([TableError(str(path), exc.lineno, f"char {exc.colno}", f"not JSON: {exc.msg}")]) from None


__all__ = ["KNOWN", "JsonInputError", "Provenance", "load", "provenance_of"]
