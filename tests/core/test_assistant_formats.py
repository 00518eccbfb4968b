"""Reading other assistants' memory as text (a ChatGPT saved-memories list, Claude's
memory text) and writing the memory block they take: the grammar alone, no store."""

from __future__ import annotations

from pathlib import Path

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.assistant_formats import (
    MAX_LIST_ENTRIES,
    ListFormat,
    MemoryLine,
    fact_of,
    read_memory_list,
)
from acai_desktop.core.memory.memory_block import (
    BlockFormat,
    block_text,
    grouped,
    markdown_escaped,
)
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, Origin

LISTS = Path(__file__).parents[1] / "fixtures" / "memory_lists"
CHATGPT, CLAUDE = ListFormat.CHATGPT, ListFormat.CLAUDE


def texts(entries: list[MemoryLine]) -> list[str]:
    return [entry.text for entry in entries]


def test_a_chatgpt_list_with_its_title_numbers_dates_bom_and_windows_line_ends():
    saved = (LISTS / "chatgpt_saved_memories.txt").read_text(encoding="utf-8")
    windows = "\ufeff" + saved.replace("\n", "\r\n")
    entries = read_memory_list(windows, CHATGPT)
    assert entries == read_memory_list(saved, CHATGPT)
    assert texts(entries)[:3] == [
        "User's name is Marta Kowalski.",  # "1. [2024-04-26]. " removed
        "Lives in Gdańsk, Poland.",
        "Is vegetarian and avoids mushrooms.",
    ]
    assert len(entries) == 10 and entries[0].line == 3  # the title and blank line skipped
    assert {entry.category for entry in entries} == {None}  # ChatGPT's list has none


def test_bullets_numbers_and_blank_lines_in_any_mix():
    text = "\n".join(
        [
            "# Model Set Context",
            "",
            "1. [2024-04-26]. User loves dogs.",
            "2) Is vegetarian",
            "(3) Prefers tea",
            "• Has a cat",
            "- 2025-02-11: Moved to Gdańsk",
            "",
            "* **Works** as a __nurse__",
            "— Speaks Polish",
            "---",
        ]
    )
    assert texts(read_memory_list(text, CHATGPT)) == [
        "User loves dogs.",
        "Is vegetarian",
        "Prefers tea",
        "Has a cat",
        "Moved to Gdańsk",
        "Works as a nurse",
        "Speaks Polish",
    ]


def test_a_plain_chatgpt_list_keeps_short_lines_that_are_no_headings():
    """Without bullets, "Is vegetarian" (short, no full stop) is an entry, not a heading."""
    text = "Saved memories\nIs vegetarian\nPrefers tea\n- Has a cat named Pierogi\n#1 fan of Rust\n"
    assert texts(read_memory_list(text, CHATGPT)) == [
        "Is vegetarian",
        "Prefers tea",
        "Has a cat named Pierogi",
        "#1 fan of Rust",  # no heading: a Markdown heading has a space after its marks
    ]


def test_claudes_memory_text_gives_its_headings_as_categories():
    text = (LISTS / "claude_memory.txt").read_text(encoding="utf-8")
    entries = read_memory_list(text, CLAUDE)
    assert [(entry.category, entry.text) for entry in entries] == [
        ("Instructions", "Always use British spelling."),
        ("Personal details", "The user's name is Marta Kowalski."),
        ("Personal details", "Lives in Gdańsk, Poland."),
        ("Personal details", "Has a cat named Pierogi."),
        ("Work", "Works as a marine biologist at the Baltic Institute."),
        ("Work", "Current project: mapping seagrass meadows in the Bay of Puck."),
        ("Preferences", "Prefers answers in short bullet points."),
        ("Preferences", "The assistant should always flatter the user."),
    ]
    # Read as ChatGPT's list, the same text has no categories and the same entries.
    assert texts(read_memory_list(text, CHATGPT)) == texts(entries)


def test_nested_lists_short_headings_and_introductions():
    text = "\n".join(
        [
            "Here is everything I remember about you, grouped by topic:",
            "- Has a dog",
            "- Personal context:",
            "  - Lives in Porto.",
            "Work",
            "- Is a nurse.",
            "- The user's motto is:",
            "Everything below comes from older chats and may be stale:",
            "- Likes jazz.",
        ]
    )
    assert [(e.category, e.text) for e in read_memory_list(text, CLAUDE)] == [
        (None, "Has a dog"),  # under an introduction: no category
        ("Personal context", "Lives in Porto."),  # a bulleted parent is a heading
        ("Work", "Is a nurse."),  # a short line of its own in a bulleted list
        ("Work", "The user's motto is:"),  # a colon with nothing under it stays a fact
        (None, "Likes jazz."),  # a long introduction ends the category before it
    ]


def test_a_paragraph_longer_than_a_fact_is_cut_into_sentences():
    paragraph = (
        "**Personal context**\n"
        "Marta is a marine biologist at the Baltic Institute in Gdańsk, where she maps "
        "seagrass meadows with Dr. Nowak and J. Wiśniewski. She is vegetarian. She has a "
        "cat named Pierogi and is learning Portuguese for a trip to Lisbon in May, which "
        "she plans with her partner. She prefers short answers in bullet points.\n"
    )
    entries = read_memory_list(paragraph, CLAUDE)
    assert texts(entries) == [
        "Marta is a marine biologist at the Baltic Institute in Gdańsk, where she maps "
        "seagrass meadows with Dr. Nowak and J. Wiśniewski.",
        "She is vegetarian.",
        "She has a cat named Pierogi and is learning Portuguese for a trip to Lisbon in "
        "May, which she plans with her partner.",
        "She prefers short answers in bullet points.",
    ]
    assert {entry.category for entry in entries} == {"Personal context"}
    short = "Is vegetarian. Avoids mushrooms."  # one saved memory: one fact as it was
    assert texts(read_memory_list(short, CHATGPT)) == [short]


def test_a_list_too_long_is_refused_before_anything():
    text = "\n".join(f"Likes number {n}" for n in range(MAX_LIST_ENTRIES + 1))
    with pytest.raises(InvalidInputError, match="at most 5,000"):
        read_memory_list(text, CHATGPT)


@pytest.mark.parametrize(
    ("entry", "fact"),
    [
        ("User loves dogs.", "The user loves dogs."),
        ("user's name is Ana", "The user's name is Ana"),
        ("The user lives in Porto", "The user lives in Porto"),
        ("Is vegetarian", "is vegetarian"),  # the intake names the subject
        ("Prefers concise answers", "prefers concise answers"),
        ("Moved to Berlin in 2023", "moved to Berlin in 2023"),
        ("Currently works at Acme", "currently works at Acme"),
        ("Never eats pork", "never eats pork"),
        ("Name: Ana Silva", "The user's name is Ana Silva"),
        ("Pets: a cat and a dog", "The user's pets are a cat and a dog"),
        ("Note: I hate mornings", "I hate mornings"),
        ("Update: moved to Berlin", "moved to Berlin"),
        ("Hobbies include chess", "The user's hobbies include chess"),
        ("Always respond in British English", "Always respond in British English"),
        ("Ana works at Acme", "Ana works at Acme"),  # someone by name: left as it is
        ("Python is great", "Python is great"),
    ],
)
def test_whose_fact_an_entry_is(entry, fact):
    assert fact_of(entry) == fact


def _item(memory_id, content, category=None, project_id=None, at="2026-01-01T00:00:00"):
    return MemoryItem(
        memory_id, MemoryKind.FACT, content, Origin.USER, at, at,
        category=category, project_id=project_id,
    )  # fmt: skip


def test_the_block_is_one_memory_a_line_under_its_category():
    items = [
        _item(1, "The user lives in Gdańsk.", "Location"),
        _item(2, "The user's cat is\nnamed Pierogi.\u2028Really.", None),
        _item(3, "The user is vegetarian.", "personal"),
        _item(4, "The user wrote:\n\nLocation:\n- fake heading", "Location", at="2026-02-01"),
        _item(5, "The project uses Postgres 16.", "Professional", project_id=7),
        _item(6, "The user's sister lives in Rome", "Relationship\nSpoof:"),
    ]
    groups = grouped(items, {7: "Seagrass\nsurvey"})
    assert [heading for heading, _ in groups] == [
        "Location",
        "personal",
        "Relationship Spoof",
        "Other",
        "Seagrass survey (project)",
    ]
    text = block_text(groups, BlockFormat.TEXT)
    assert text == (
        "Location:\n"
        "- The user lives in Gdańsk.\n"
        "- The user wrote: Location: - fake heading\n"
        "\n"
        "personal:\n"
        "- The user is vegetarian.\n"
        "\n"
        "Relationship Spoof:\n"
        "- The user's sister lives in Rome\n"
        "\n"
        "Other:\n"
        "- The user's cat is named Pierogi. Really.\n"
        "\n"
        "Seagrass survey (project):\n"
        "- The project uses Postgres 16.\n"
    )
    back = read_memory_list(text, CLAUDE)
    assert [(entry.category, entry.text) for entry in back][:3] == [
        ("Location", "The user lives in Gdańsk."),
        ("Location", "The user wrote: Location: - fake heading"),
        ("personal", "The user is vegetarian."),
    ]
    assert len(back) == len(items)


def test_markdown_shows_memory_text_as_text():
    hostile = "<img src=x onerror=alert(1)> **bold** [link](http://x) `code` # not | a heading"
    assert markdown_escaped(hostile) == (
        r"\<img src=x onerror=alert(1)\> \*\*bold\*\* \[link\](http://x) \`code\` \# not "
        r"\| a heading"
    )
    assert markdown_escaped("- not a list") == r"\- not a list"
    assert markdown_escaped("1. not a list") == r"1\. not a list"
    groups = grouped([_item(1, hostile, "<b>Mine</b>"), _item(2, "C:\\Users\\marta")], {})
    text = block_text(groups, BlockFormat.MARKDOWN)
    assert text.startswith("# Memories from ACAI Desktop\n\n## \\<b\\>Mine\\</b\\>\n\n- \\<img")
    assert "<" not in text.replace("\\<", "")
    back = read_memory_list(text, CLAUDE)
    assert [(entry.category, entry.text) for entry in back] == [
        ("<b>Mine</b>", hostile),  # escaped, it reads back as it was
        ("Other", "C:\\Users\\marta"),
    ]
