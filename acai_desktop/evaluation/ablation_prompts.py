"""The prompt each configuration of ``eval ablation`` answers from, built by the app's code.

- A: the app's system prompt and the question (the context builder with nothing to add);
- B: A with the planner's plan stated in the system message. The app itself uses the plan
  only to choose how deep to retrieve (``Plan.retrieval_k``), which changes nothing
  without retrieval; stating it is the one way a plan can reach the answer here, and
  the report says so;
- C and D: the app's own :meth:`~acai_desktop.core.turns.prompt_assembly.PromptAssembly.build`
  for the question asked in a new temporary chat (a temporary chat's messages are never
  recalled, so one question can't feed the next) — in C over a profile holding the
  conversation's messages only, in D over one where the processors also learned from it;
- F: every turn of the conversation quoted as the app quotes a recalled message (date,
  chat, speaker), newest kept first where they don't all fit the model's window.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from acai_desktop.core.memory.context_builder import BuiltContext, build_context
from acai_desktop.core.memory.prompt_lines import (
    MEMORY_BLOCK_TOKENS,
    RECALLED_HEADER,
    recalled_line,
)
from acai_desktop.core.memory.retrieval import RetrievedMessage
from acai_desktop.core.memory.tokens import estimate_tokens
from acai_desktop.core.records.conversations import RecalledMessage
from acai_desktop.core.turns.planner import Plan, plan_message
from acai_desktop.core.turns.prompt_assembly import PromptAssembly

#: Added to the system message of every prompt, in every configuration: LoCoMo's gold
#: answers are short, and F1 punishes an answer for every word it adds. Not to the
#: question: the app retrieves by the user's words, and "answer", "few" and "words"
#: would count as half of what a short question asks about.
SHORT_ANSWER = "Answer in a few words."
#: The reason F's turns carry in the prompt's provenance (they were not retrieved).
WHOLE_CONVERSATION = "whole_conversation"
#: Estimates are per line; a few tokens of slack keep F's last (oldest) line from
#: missing the budget by a rounding and leaving a hole in the middle instead.
_SLACK_TOKENS = 8


def question_text(question: str) -> str:
    return question.strip()


def asking_short_answers(context: BuiltContext) -> BuiltContext:
    """``context`` with :data:`SHORT_ANSWER` at the end of its system message."""
    system = context.messages[0]
    messages = [
        {**system, "content": f"{system['content']}\n\n{SHORT_ANSWER}"},
        *context.messages[1:],
    ]
    return replace(
        context, messages=messages, tokens=context.tokens + estimate_tokens(SHORT_ANSWER)
    )


def plan_note(plan: Plan) -> str:
    return (
        f"Plan for this answer (from the planner): a {plan.task_type.value.replace('_', ' ')} "
        f"of {plan.complexity.value} complexity; steps: {'; '.join(plan.steps)}."
    )


def question_alone(system_prompt: str, text: str, budget_tokens: int) -> BuiltContext:
    return build_context(
        system_prompt=system_prompt, user_message=text, budget_tokens=budget_tokens
    )


def question_with_plan(system_prompt: str, text: str, budget_tokens: int) -> BuiltContext:
    planned = f"{system_prompt.strip()}\n\n{plan_note(plan_message(text))}"
    return build_context(system_prompt=planned, user_message=text, budget_tokens=budget_tokens)


async def app_prompt(
    prompts: PromptAssembly, text: str, asked_at: str | None = None
) -> BuiltContext:
    """What the app would send for ``text`` asked in a new (temporary) chat, at
    ``asked_at`` (ISO; None: now): "last week" counts from then."""
    conversations = prompts.conversations
    conversation = await conversations.create("Ablation question", temporary=True)
    message = await conversations.add_message(conversation.id, "user", text, created_at=asked_at)
    context, _ = await prompts.build(conversation, message, plan_message(text))
    return context


@dataclass(frozen=True)
class WholeConversation:
    context: BuiltContext
    turns: int
    dropped: int  # the oldest turns left out because the window is full


def whole_conversation(
    system_prompt: str, text: str, turns: Sequence[RecalledMessage], window_tokens: int
) -> WholeConversation:
    """F: the conversation's turns in order, the oldest left out while they overflow
    ``window_tokens`` (the prompt's share of the model's context window)."""
    bare = question_alone(system_prompt, text, window_tokens)
    room = window_tokens - bare.tokens - MEMORY_BLOCK_TOKENS - estimate_tokens(RECALLED_HEADER)
    room -= 2 + _SLACK_TOKENS
    kept: list[RecalledMessage] = []
    for message in reversed(turns):
        # Numbered up to len(turns) in the prompt: the widest number bounds the cost.
        cost = estimate_tokens(recalled_line(message, len(turns))) + 1
        if cost > room:
            break
        room -= cost
        kept.append(message)
    kept.reverse()
    retrieved = [
        RetrievedMessage(message, rank, 1.0, [WHOLE_CONVERSATION])
        for rank, message in enumerate(kept, start=1)
    ]
    context = build_context(
        system_prompt=system_prompt,
        user_message=text,
        budget_tokens=window_tokens,
        retrieved=retrieved,
        recall_share=1.0,  # the whole window is F's: no share kept for anything else
    )
    return WholeConversation(context, len(turns), len(turns) - len(context.recalled))
