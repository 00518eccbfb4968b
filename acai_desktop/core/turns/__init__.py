"""A conversational turn: the turn log (the only writer of turns), prompt assembly (the
prompt as of a point in time) and the answer stream, put together by the orchestrator."""
