"""``docs add FOLDER`` as a real process on a folder holding a looping link, a named
pipe and a link out of the folder (issue 39, G6): the rest is added, each of those is
named with its reason, and nothing hangs or prints a traceback."""

from __future__ import annotations

import os

from tests.e2e.test_docs_cli import docs_json


def test_docs_add_skips_loops_pipes_and_links_out_of_the_folder(tmp_path):
    folder = tmp_path / "notes"
    folder.mkdir()
    (folder / "boiler.txt").write_text("The boiler is serviced every October.", encoding="utf-8")
    os.symlink("loop.txt", folder / "loop.txt")
    os.mkfifo(folder / "x.txt")
    (tmp_path / "secret.txt").write_text("the neighbour's wifi password", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", folder / "out.txt")

    code, output = docs_json(tmp_path / "profile", "add", str(folder))

    assert code == 1  # a file was refused
    assert [os.path.basename(d["path"]) for d in output["documents"]] == ["boiler.txt"]
    reasons = {os.path.basename(r["path"]): r["error"] for r in output["refused"]}
    assert "symbolic link that loops" in reasons["loop.txt"]
    assert "named pipe (FIFO)" in reasons["x.txt"]
    assert "outside the folder" in reasons["out.txt"]
