"""The dataset request form: its fields, their limits, and checking what people type.

The same field list drives the ``/data/`` form and the Hugging Face card's gated-access
questions (:mod:`computeatlas.publish.exports.huggingface`), so the two ask the same things.

:func:`check` takes the submitted text fields and returns either a
:class:`DatasetRequest` or a message per field; it never raises on bad input. Names and
organisations are normalised to Unicode NFC, runs of spaces collapse to one, and accents,
apostrophes (``'`` and ``’``), hyphens and scripts of every language are accepted; control
and invisible formatting characters (other than the joiners some scripts need) are
refused, and so is a name made only of characters that show nothing (Hangul fillers, the
blank braille pattern, zero-width characters). Email syntax is checked with
``email-validator`` (strictly: at most 64 characters before the ``@``) without any network
look-up.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass, field

from email_validator import EmailNotValidError, validate_email

MAX_NAME = 100
MAX_EMAIL = 254
MAX_ORGANISATION = 150

INTENDED_USES: dict[str, str] = {
    "research": "Research",
    "evaluation": "Evaluation",
    "commercial": "Commercial use (licence enquiry)",
}
"""Intended use value → label. Research and evaluation get the CSV at once under the licence."""

FREE_USES = frozenset({"research", "evaluation"})
"""Uses the CC-BY-NC-4.0 licence covers; anything else is a licence enquiry."""

DOWNLOAD = "download"
ENQUIRY = "enquiry"


@dataclass(frozen=True, slots=True)
class FormField:
    """One question of the form: HTML ``name``, label, kind, length cap, help text, options."""

    name: str
    label: str
    kind: str  # text | email | select | checkbox
    max_length: int | None = None
    help: str = ""
    options: tuple[tuple[str, str], ...] = field(default=())


FORM_FIELDS: tuple[FormField, ...] = (
    FormField("name", "Name", "text", MAX_NAME, "As you would like to be addressed."),
    FormField("email", "Email", "email", MAX_EMAIL, "Used only to answer this request."),
    FormField("organisation", "Organisation", "text", MAX_ORGANISATION, "University, company, or “independent”."),
    FormField("intended_use", "Intended use", "select", None, "Commercial use goes to a licence enquiry.", tuple(INTENDED_USES.items())),
    FormField("licence", "I accept the CC-BY-NC-4.0 licence", "checkbox", None, "Needed for research and evaluation downloads."),
)
"""The questions, in order."""

_ALLOWED_FORMAT = {"\u200c", "\u200d"}  # zero-width non-joiner and joiner, needed by some scripts

BLANK_CHARACTERS = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers (choseong, jungseong, compatibility, halfwidth)
    "\u2800"  # braille pattern blank
    "\u034f\u17b4\u17b5\u180e"  # combining grapheme joiner, Khmer inherent vowels, Mongolian vowel separator
    "\u200b\u200c\u200d\u2060\ufeff"  # zero-width space, non-joiner, joiner, word joiner, BOM
)
"""Characters that are letters or symbols to Unicode but show nothing. A name or organisation
made only of these (and spaces) is refused; beside visible characters they are kept."""


@dataclass(frozen=True, slots=True)
class DatasetRequest:
    """A checked request: NFC-normalised text, a normalised email, a known intended use."""

    name: str
    email: str
    organisation: str
    intended_use: str
    licence_accepted: bool

    @property
    def kind(self) -> str:
        """``"download"`` for research and evaluation, ``"enquiry"`` for commercial use."""
        return DOWNLOAD if self.intended_use in FREE_USES else ENQUIRY


def clean_text(raw: str, label: str, max_length: int) -> tuple[str, str | None]:
    """``(cleaned text, error or None)`` for a free-text field of at most ``max_length`` characters.

    Refused: empty text, text too long, control or formatting characters (other than the
    joiners), and text made only of characters that show nothing (:data:`BLANK_CHARACTERS`,
    combining marks with no letter to sit on)."""
    text = unicodedata.normalize("NFC", raw[: max_length * 4])
    text = re.sub(r"\s+", " ", text).strip()
    if not text:
        return "", f"Enter your {label.lower()}."
    if len(raw) > max_length * 4 or len(text) > max_length:
        return text[:max_length], f"{label} is too long: at most {max_length} characters."
    for char in text:
        category = unicodedata.category(char)
        if category in ("Cc", "Cs", "Co", "Cn") or (category == "Cf" and char not in _ALLOWED_FORMAT):
            return text, f"{label} contains a control or invisible character (U+{ord(char):04X}); please remove it."
    if all(char in BLANK_CHARACTERS or char.isspace() or unicodedata.category(char) in ("Mn", "Me") for char in text):
        first = next(char for char in text if not char.isspace())
        return text, f"{label} has no visible characters (U+{ord(first):04X} shows nothing); please type it."
    return text, None


def check(form: Mapping[str, str]) -> tuple[DatasetRequest | None, dict[str, str], dict[str, str]]:
    """Check the submitted ``form`` fields.

    Returns ``(request or None, errors by field name, cleaned values to show again)``. The
    request is None exactly when there are errors.
    """
    errors: dict[str, str] = {}
    values: dict[str, str] = {}
    values["name"], error = clean_text(form.get("name", ""), "Name", MAX_NAME)
    if error:
        errors["name"] = error
    values["organisation"], error = clean_text(form.get("organisation", ""), "Organisation", MAX_ORGANISATION)
    if error:
        errors["organisation"] = error.replace("Enter your organisation.", "Enter your organisation (or “independent”).")
    raw_email = form.get("email", "").strip()
    values["email"] = raw_email[:MAX_EMAIL]
    if not raw_email:
        errors["email"] = "Enter your email address."
    elif len(raw_email) > MAX_EMAIL:
        errors["email"] = f"Email is too long: at most {MAX_EMAIL} characters."
    else:
        try:
            # strict: also the RFC 5321 limit of 64 characters before the @-sign
            values["email"] = validate_email(raw_email, check_deliverability=False, strict=True).normalized
        except EmailNotValidError as exc:
            errors["email"] = f"That email address is not valid: {exc}"
    use = form.get("intended_use", "")
    values["intended_use"] = use if use in INTENDED_USES else ""
    if use not in INTENDED_USES:
        errors["intended_use"] = "Choose research, evaluation or commercial use."
    accepted = form.get("licence", "") == "accepted"
    values["licence"] = "accepted" if accepted else ""
    if use in FREE_USES and not accepted:
        errors["licence"] = "Tick the box to accept the CC-BY-NC-4.0 licence; without it we cannot send the data."
    if errors:
        return None, errors, values
    request = DatasetRequest(values["name"], values["email"], values["organisation"], use, accepted)
    return request, {}, values
