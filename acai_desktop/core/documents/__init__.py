"""Documents as evidence beside memory: the user's files, read, chunked, indexed and
searched, so an answer can quote them and say where the passage came from.

- :mod:`.model` — the records (Document, Passage, EvidenceSource) and the scope;
- :mod:`.readers` — a file to text sections (pages, headings), with clear refusals;
  :mod:`.html_text` and :mod:`.pdf_text` read those two formats;
- :mod:`.chunking` — sections to chunks by structure, around a token budget;
- :mod:`.vectors` — the chunks' vectors in memory; :mod:`.search` — hybrid ranking;
- :mod:`.indexing` — the background job that reads, chunks, embeds and stores a file;
- :mod:`.prompt_block` — passages as quoted material in the system prompt;
- :mod:`.service` — :class:`DocumentService`, what the window and the CLI call;
  :mod:`.session` opens it alone for the ``docs`` command;
- :mod:`.attachments` — files attached in a chat's composer: documents of that chat only.

Documents are evidence, never memory: no processor reads them, and the prompt quotes
their passages as data (see ``core.memory.context_builder``).
"""
