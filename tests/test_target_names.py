"""A target named in a way the run could not use is refused when the spec is read, as
``--check`` shows it, not later in the play (exit 1); an operator's note is as long as a
spec's may be."""

from __future__ import annotations

from pathlib import Path

from sweeper.platforms.manual import NOTE_MAX, answer_waiting_sweep
from sweeper.target import target_problems


def test_a_target_ending_with_a_slash_is_refused(tmp_path: Path) -> None:
    """``/dev/loop1/`` or ``…/new.img/``: realpath hid the slash, the play then failed."""
    folder = tmp_path / "t"
    folder.mkdir()
    assert target_problems(f"{folder}/new.img/", allow=[], file_size=1024) == [
        ("target", f"{folder}/new.img/ ends with a slash: a device or a file has none")
    ]
    assert not (folder / "new.img").exists()


def test_a_dangling_link_is_refused_even_with_a_size(tmp_path: Path) -> None:
    link = tmp_path / "link.img"
    link.symlink_to(tmp_path / "nowhere" / "x.img")
    assert target_problems(str(link), allow=[], file_size=1024) == [
        ("target", f"{link} is a link to {tmp_path / 'nowhere' / 'x.img'}, which does not exist")
    ]


def test_an_operators_note_is_as_long_as_a_specs(tmp_path: Path) -> None:
    waiting, problems = answer_waiting_sweep(
        tmp_path, {"platform": "manual"}, "raid5/single_rank/wb-ra", "/dev/x", "n" * 100_000
    )
    assert waiting is None
    assert problems == [("note", f"is 100,000 characters: at most {NOTE_MAX}, as a spec's note")]
    assert list(tmp_path.iterdir()) == []
