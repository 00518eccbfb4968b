"""The importance formula and the memory policy on concrete cases."""

from datetime import UTC, datetime, timedelta

import pytest

from acai_desktop.core.errors import InvalidInputError
from acai_desktop.core.memory.policy import MemoryPolicy
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus, Origin
from acai_desktop.core.rules.importance import content_prior, score_importance

POLICY = MemoryPolicy()
NOW = datetime(2026, 6, 1, tzinfo=UTC)


@pytest.mark.parametrize("text", ["okay thanks", "ok", "got it", "Thanks!", "sure, cool"])
def test_small_talk_stays_below_the_threshold(text):
    score = score_importance(text, kind="fact", confidence=1.0)
    assert score < POLICY.long_term_threshold
    assert POLICY.decide(score, explicit=False) == MemoryStatus.TEMPORARY


@pytest.mark.parametrize(
    "text",
    [
        "I prefer Python for backend development",
        "My name is John, and I'm a big fan of sci-fi novels.",
        "I am allergic to peanuts",
        "Remember that my sister's birthday is on 4 March",
    ],
)
def test_durable_personal_facts_go_to_long_term_memory(text):
    score = score_importance(text, kind="fact", confidence=0.9)
    assert score > POLICY.long_term_threshold
    assert POLICY.decide(score, explicit=False) == MemoryStatus.ACTIVE


def test_each_signal_moves_the_prior_in_its_direction():
    plain = content_prior("The report is due on the first day of June")
    assert content_prior("I always submit the report on the first day of June") > plain
    assert content_prior("Remember the report is due on the first day of June") > plain
    assert content_prior("Is the report due on the first day of June?") < plain
    assert content_prior("report due") < plain
    assert content_prior(" ".join(["word"] * 200)) < plain
    assert content_prior("The report is due on the first day of June", kind="summary") > plain


def test_confidence_discounts_but_cannot_create_importance():
    text = "I prefer Python for backend development"
    assert score_importance(text, confidence=0.2) < score_importance(text, confidence=0.9)
    assert score_importance("okay thanks", confidence=1.0) == pytest.approx(0.05)


def test_use_raises_importance_with_diminishing_returns_and_fades_with_time():
    text = "The user runs"
    recent = (NOW - timedelta(days=1)).isoformat()
    base = score_importance(text, confidence=0.5, now=NOW)
    one = score_importance(text, confidence=0.5, use_count=1, last_used_at=recent, now=NOW)
    two = score_importance(text, confidence=0.5, use_count=2, last_used_at=recent, now=NOW)
    ten = score_importance(text, confidence=0.5, use_count=10, last_used_at=recent, now=NOW)
    assert base < one < two < ten <= 1.0
    assert (two - one) < (one - base)
    stale = (NOW - timedelta(days=90)).isoformat()
    faded = score_importance(text, confidence=0.5, use_count=10, last_used_at=stale, now=NOW)
    assert base < faded < ten


def test_explicit_floors_and_everything_stays_in_range():
    assert score_importance("ok", explicit=True) == pytest.approx(0.8)
    texts = ["", "ok", "I love love love it " * 50, "Remember: I always hate my favourite x"]
    for text in texts:
        for confidence in (-3.0, 0.0, 0.5, 1.0, 7.0):
            assert 0.0 <= score_importance(text, confidence=confidence, use_count=99) <= 1.0


def test_policy_decides_and_promotes():
    policy = MemoryPolicy(long_term_threshold=0.5, promote_after_uses=3)
    assert policy.decide(0.49, explicit=False) == MemoryStatus.TEMPORARY
    assert policy.decide(0.5, explicit=False) == MemoryStatus.ACTIVE
    assert policy.decide(0.0, explicit=True) == MemoryStatus.ACTIVE

    def item(status, use_count, importance):
        return MemoryItem(
            id=1,
            kind=MemoryKind.FACT,
            content="x",
            origin=Origin.CRITICAL_INFO,
            created_at="2026-01-01T00:00:00+00:00",
            updated_at="2026-01-01T00:00:00+00:00",
            status=status,
            use_count=use_count,
            importance=importance,
        )

    assert not policy.should_promote(item(MemoryStatus.TEMPORARY, 2, 0.3))
    assert policy.should_promote(item(MemoryStatus.TEMPORARY, 3, 0.3))
    assert policy.should_promote(item(MemoryStatus.TEMPORARY, 0, 0.6))
    assert not policy.should_promote(item(MemoryStatus.FORGOTTEN, 9, 0.9))


@pytest.mark.parametrize(
    "settings",
    [{"long_term_threshold": 1.5}, {"long_term_threshold": -0.1}, {"promote_after_uses": 0}],
)
def test_policy_refuses_impossible_settings(settings):
    with pytest.raises(InvalidInputError):
        MemoryPolicy(**settings)


@pytest.mark.parametrize(
    ("fact", "category"),
    [
        ("The user is vegetarian.", "Health"),  # the issue: stored Temporary at 0.28
        ("The user's name is Alice.", "Personal"),
        ("The user is allergic to peanuts.", None),
        ("The user's partner Sam is a chef.", "Relationship"),
        ("The user lives in Leeds.", None),
        ("The user works at a bank.", None),
        ("The user calls their mother every Sunday.", "Other"),
    ],
)
def test_what_lasts_is_long_term_from_the_first_mention(fact, category):
    score = score_importance(fact, category=category, confidence=0.8)
    assert POLICY.decide(score, explicit=False) == MemoryStatus.ACTIVE


@pytest.mark.parametrize(
    ("fact", "category"),
    [
        ("The user is tired today.", "Personal"),
        ("The user is going to the gym after work today.", "Plan"),
        ("It is raining where the user is.", "Other"),
        ("The user is in a bad mood.", "Personal"),
        ("The user's sister is coming over for dinner tonight.", "Relationship"),
        ("The user feels anxious about a meeting this afternoon.", "Health"),
        ("The user watched a film.", "Other"),
    ],
)
def test_moods_plans_for_today_and_the_weather_stay_temporary(fact, category):
    score = score_importance(fact, category=category, confidence=1.0)
    assert POLICY.decide(score, explicit=False) == MemoryStatus.TEMPORARY


def test_a_summary_of_a_day_stays_long_term():
    """A summary stands for the messages it folded: "today" must not make it temporary."""
    text = "The user said they are tired today and asked for dinner ideas for tonight."
    score = score_importance(text, kind="summary", confidence=1.0)
    assert POLICY.decide(score, explicit=False) == MemoryStatus.ACTIVE


def test_the_temporary_badge_explanation_says_when_it_becomes_long_term():
    text = MemoryPolicy(promote_after_uses=2).temporary_explanation()
    assert "not used in answers" in text and "twice more" in text and "pin" in text
    assert "3 more times" in MemoryPolicy(promote_after_uses=3).temporary_explanation()


def test_a_plan_months_ahead_is_long_term_and_one_for_today_is_not():
    ahead = score_importance("The user plans to visit Rome in May", category="Plan")
    today = score_importance("The user plans to visit the museum today", category="Plan")
    assert POLICY.decide(ahead, explicit=False) == MemoryStatus.ACTIVE
    assert POLICY.decide(today, explicit=False) == MemoryStatus.TEMPORARY
