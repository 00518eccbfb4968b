""" "Why didn't you use …?" (issue 43, item 2): an answer's turn replayed as it was, and
why a memory, a message or a document passage the user points at fed it or not, in
plain words, with the one-click fixes that apply.

- :mod:`.replay` — the answer's prompt made again as of its question, through the
  turn's own prompt assembly, with what its searches returned;
- :mod:`.causes` — the causes, in the order they bind (a passage's: :mod:`.passage_causes`);
- :mod:`.words` — the sentences; :mod:`.result` — the JSON-able result;
- :mod:`.items` — the item the user means, by words typed or pasted;
- :mod:`.fixes` — the fixes, applied only on the user's click;
- :mod:`.service` — :class:`WhyNotService` for the window and the command line.
"""
