"""Conversations brought in from other assistants' data exports (ChatGPT, Claude).

:mod:`.model` is what every reader produces, :mod:`.chatgpt` and :mod:`.claude` read
the two published formats, :mod:`.importer` writes them into the profile and queues the
learning the user chose (:mod:`.budget`).
"""
