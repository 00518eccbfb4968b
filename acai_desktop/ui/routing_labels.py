"""How the routing choices read in Settings and a chat's ⚙ (core.routing's policies)."""

CHAT_MODEL_ALWAYS = "Your chat model, always"
POLICY_LABELS = {
    "best": "The best model for the turn",
    "balanced": "Balanced: good enough for the turn, cheapest",
    "cheapest": "The cheapest that can do the turn",
    "fastest": "The fastest that can do the turn",
    "local_only": "The best on this computer",
}


def routing_label(routing: str | None) -> str:
    """``None`` and ``"off"``: the chat's model answers every turn."""
    return POLICY_LABELS.get(routing or "off", CHAT_MODEL_ALWAYS)
