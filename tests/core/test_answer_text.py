"""An answer's text while it streams: capped on a character boundary, joined sparingly."""

from acai_desktop.core.turns.answer_text import AnswerText, cut_note, was_cut


def test_an_answer_is_cut_at_its_limit_on_a_character_boundary():
    text = AnswerText(limit_bytes=10)

    assert text.add("abcdefgh") == "abcdefgh"
    assert not text.cut
    # "é" is two bytes in UTF-8: only one fits in the 2 bytes left, and never half of one.
    assert text.add("ééé") == "é"
    assert text.cut
    assert text.add("more") == ""  # nothing is kept after the cut
    assert text.text() == "abcdefghé"
    assert text.size_bytes == 10 == len(text.text().encode("utf-8"))


def test_a_split_multibyte_character_is_dropped_not_kept_half():
    text = AnswerText(limit_bytes=5)
    text.add("abcd")
    assert text.add("€uro") == ""  # "€" takes 3 bytes; 1 is left
    assert text.cut and text.text() == "abcd"


def test_showing_a_long_stream_copies_a_linear_amount_of_text():
    """A long answer streamed in small pieces and shown as it grows: the texts handed
    to the window add up to a few times the answer's size, not its square."""
    text = AnswerText(limit_bytes=10**9)
    pieces = 20_000
    shown_characters = shown_pieces = 0
    for _ in range(pieces):
        text.add("word ")
        if text.due_to_show(now=0.0):  # no time passes: only growth makes it due
            added, whole = text.show(now=0.0)
            shown_characters += len(whole)
            shown_pieces += len(added)
    added, whole = text.show(now=0.0)
    shown_pieces += len(added)

    size = len(text.text())
    assert size == 5 * pieces and whole == text.text()
    assert shown_pieces == size  # every piece was shown, once
    assert shown_characters <= 10 * size  # per piece it would be 20,000 / 2 = 10,000 times


def test_a_slow_stream_is_shown_piece_by_piece():
    text = AnswerText(limit_bytes=10**9)
    text.add("x" * 10_000)
    text.show(now=0.0)
    text.add("y")
    assert not text.due_to_show(now=0.0)  # a tiny share of the text, at once
    assert text.due_to_show(now=1.0)  # but a moment later it is shown


def test_the_cut_note_names_the_limit_and_is_recognised():
    assert "1 MB" in cut_note(1_000_000)
    assert was_cut(cut_note(1_000_000))
    assert not was_cut(None) and not was_cut("The model server failed.")
