import pytest

from acai_desktop.core.turns.planner import Complexity, TaskType, is_acknowledgement, plan_message


@pytest.mark.parametrize("text", ["okay", "Thanks!", "got it.", "OK thanks", "  hi  "])
def test_acknowledgements_are_small_talk(text):
    assert is_acknowledgement(text)
    plan = plan_message(text)
    assert plan.task_type is TaskType.SMALL_TALK
    assert plan.complexity is Complexity.LOW


@pytest.mark.parametrize(
    ("text", "task"),
    [
        ("My name is John, and I'm a big fan of sci-fi novels.", TaskType.PERSONAL_INFO),
        ("I prefer Python for backend development.", TaskType.PERSONAL_INFO),
        ("What language should I use for my backend?", TaskType.QUESTION),
        ("Do you remember what my favourite novel is?", TaskType.RECALL),
        ("Fix this function: ```def f(): return 1/0```", TaskType.CODING),
        ("Write an email to my landlord about the heating", TaskType.WRITING),
        ("Plan a three day trip to Lisbon", TaskType.PLANNING),
        ("List the planets", TaskType.INSTRUCTION),
    ],
)
def test_task_types(text, task):
    assert plan_message(text).task_type is task


def test_complexity_grows_with_length_and_clauses():
    short = plan_message("What is the capital of France?")
    long = plan_message(
        "I need to migrate a service. First read the config, then port the models, then "
        "write tests; and then deploy it. Also check the logs. And update the docs. " * 3
    )
    assert short.complexity is Complexity.LOW
    assert long.complexity is Complexity.HIGH
    assert long.retrieval_k > short.retrieval_k


def test_plan_is_recordable_as_json_ready_dict():
    data = plan_message("Do you remember my name?").to_dict()
    assert data["task_type"] == "recall"
    assert isinstance(data["steps"], list) and data["steps"]
    assert data["retrieval_k"] >= 10
