"""A sweep's record in a folder that is no sweep name, or that names another sweep: each
says its own problem (``sweeper.store.trust.sweep_record``)."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from sweeper.errors import StoreError
from sweeper.store.trust import sweep_record


def _problem(folder: str, named: str) -> str:
    with pytest.raises(StoreError) as caught:
        sweep_record(Path("/store") / folder / "sweep.json", {"sweep_id": named, "spec": {}})
    return str(caught.value)


def test_a_folder_that_is_no_sweep_name_says_which_rule_it_breaks() -> None:
    said = _problem("schnéll", "schnéll")
    assert "names sweep" not in said and "but lies in the folder" not in said
    assert "the folder 'schnéll' is not a sweep name" in said
    assert "'é' (U+00E9), not an ASCII letter, digit, '.', '_' or '-'" in said


@pytest.mark.parametrize(
    ("folder", "why"),
    [
        (".hidden", "begins with '.', not a letter or a digit"),
        ("a" * 65, "65 characters long, more than 64"),
        ("two words", "' ' (U+0020)"),
    ],
)
def test_each_rule_a_folder_breaks_is_named(folder: str, why: str) -> None:
    said = _problem(folder, folder)
    assert "is not a sweep name" in said and why in said


def test_a_record_naming_another_sweep_keeps_the_mismatch() -> None:
    said = _problem("quick", "other")
    assert "names sweep 'other' but lies in the folder 'quick'" in said
    assert "normalisation" not in said


def test_names_that_differ_in_normalisation_only_say_so() -> None:
    nfc, nfd = (unicodedata.normalize(f, "schnéll") for f in ("NFC", "NFD"))
    said = _problem(nfd, nfc)
    assert "but lies in the folder" in said
    assert "different Unicode normalisations: the record's is NFC, the folder's NFD" in said


def test_a_valid_record_is_kept() -> None:
    record = {"sweep_id": "quick", "spec": {}}
    assert sweep_record(Path("/store/quick/sweep.json"), record) is record
