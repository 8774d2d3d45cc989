"""What a sweep says of its decision (recommender/search_evidence.py): a near-tie the evidence
cannot resolve is not called sure, and the text and documents say so per class."""

from __future__ import annotations

import numpy as np

from recommender.search_evidence import class_line, evidence_document, headline
from sweeper.sweep.stopping import judge
from tests.support.landscape import SPACE, sample, table


def near_tie_decision() -> dict:
    """Configurations a few percent apart without any structure to learn, measured with a 1%
    spread: which unmeasured one is best cannot be known from the measured ones."""
    rng = np.random.default_rng(5)
    scores = {c.key: 1000.0 * (1 + 0.03 * rng.standard_normal()) for c in sample(40, seed=5)}
    decision = judge(
        table(scores, cv_pct=1.0),
        SPACE,
        set(),
        ["redo_log"],
        measured=len(scores),
        within_pct=3.0,
        confidence=0.95,
    )
    return decision.record()


def test_a_near_tie_is_not_called_sure_and_the_text_says_so() -> None:
    record = near_tie_decision()
    assert record["stop"] is False
    (c,) = record["classes"]
    assert not c["confident"] and c["confidence"] < 0.95
    assert headline(record).startswith("not sure of redo_log")
    assert "(not sure)" in class_line(c) and c["pick"] in class_line(c)
    doc = evidence_document(record)
    assert doc is not None and doc["stopped_by_evidence"] is False
    assert doc["classes"]["redo_log"]["sure"] is False


def test_a_class_not_yet_judged_says_why() -> None:
    line = class_line({"name": "mail", "unsure": "not yet measured: raid_level raid6"})
    assert line == "mail: not judged (not yet measured: raid_level raid6)"
    assert evidence_document(None) is None


def test_a_threat_is_named_only_when_it_has_a_chance() -> None:
    base = {"name": "redo_log", "confidence": 0.8, "confident": False, "pick": "raid10/a"}
    named = class_line(base | {"threat": "raid5/b", "p_threat": 0.12})
    assert named.endswith("the likeliest to beat it: raid5/b (12%)")
    spread = class_line(base | {"threat": "raid5/b", "p_threat": 0.004})
    assert "raid5/b" not in spread and "the doubt is spread" in spread
