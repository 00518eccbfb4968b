"""Folders and attachments with real links and pipes (issue 39, G6/G7): only regular
files are read, a looping link or a named pipe is skipped with its reason (never a
traceback, never a hang), and a folder's walk does not follow a link out of the folder.
The imports read regular files only too."""

from __future__ import annotations

import os

import pytest

from acai_desktop.core.conversations.chat_import.importer import read_export
from acai_desktop.core.conversations.chat_import.model import ImportFileError
from acai_desktop.core.documents.model import DocumentReadError, DocumentStatus
from tests.core.test_documents_service import documents_at
from tests.support.aio import run
from tests.support.assistant import running_assistant

ONLY = "only regular files are read."
# A pipe that was opened would block for ever: a failure must end, not hang the run.
pytestmark = pytest.mark.timeout(120)


def _folder_with_special_files(tmp_path):
    folder = tmp_path / "notes"
    (folder / "sub").mkdir(parents=True)
    (folder / "good.txt").write_text("The boiler is serviced every October.", encoding="utf-8")
    (folder / "sub" / "plan.md").write_text("# Plan\n\nPaint the hall in May.\n")
    os.symlink("loop.txt", folder / "loop.txt")  # a link to itself
    os.symlink("b.md", folder / "a.md")  # two links leading to each other
    os.symlink("a.md", folder / "b.md")
    os.mkfifo(folder / "x.txt")
    secret = tmp_path / "secret.txt"
    secret.write_text("root:$6$hash-of-a-password:19000:0:99999:7:::", encoding="utf-8")
    os.symlink(secret, folder / "out.txt")  # a file link leading out of the folder
    os.symlink(folder / "sub" / "plan.md", folder / "plan-link.md")  # one that stays in
    os.symlink(tmp_path, folder / "up")  # a folder link (never followed)
    return folder


def test_a_folder_is_added_without_its_loops_pipes_and_links_out(tmp_path):
    folder = _folder_with_special_files(tmp_path)

    async def scenario():
        async with documents_at(tmp_path / "acai.sqlite3") as (service, runner):
            report = await service.add_folder(folder)
            await runner.wait_for(report.job_ids, timeout=60)
            documents = await service.list()
            hits = await service.search("password hash root")
        return report, documents, hits

    report, documents, hits = run(scenario())
    added = sorted(os.path.relpath(d.path, folder) for d in documents)
    assert added == ["good.txt", "plan-link.md", "sub/plan.md"]
    assert {d.status for d in documents} == {DocumentStatus.READY}
    refused = {os.path.basename(path): why for path, why in report.refused}
    assert set(refused) == {"a.md", "b.md", "loop.txt", "x.txt", "out.txt"}
    assert refused["loop.txt"] == (
        "loop.txt is a symbolic link that loops (it leads back to itself); only regular "
        "files are read."
    )
    assert refused["a.md"].startswith("a.md is a symbolic link that loops")
    assert refused["x.txt"] == f"x.txt is a named pipe (FIFO), not a regular file; {ONLY}"
    assert refused["out.txt"] == (
        f"out.txt is a link to {tmp_path / 'secret.txt'}, outside the folder; only regular "
        "files are read."
    )
    assert not [hit for hit in hits if "password" in hit.passage.content]


def test_a_pipe_or_a_loop_added_by_name_is_refused_at_once(tmp_path):
    os.mkfifo(tmp_path / "x.txt")
    os.symlink("loop.md", tmp_path / "loop.md")

    async def scenario():
        async with documents_at(tmp_path / "acai.sqlite3", runner=False) as (service, _):
            report = await service.add([tmp_path / "x.txt", tmp_path / "loop.md"])
            return report, await service.list()

    report, documents = run(scenario())
    assert [why.split(" is ")[1][:22] for _, why in report.refused] == [
        "a named pipe (FIFO), n",
        "a symbolic link that l",
    ]
    assert documents == []


def test_the_composer_refuses_a_pipe_a_device_and_a_loop(tmp_path, fake_openai):
    os.mkfifo(tmp_path / "x.txt")
    os.symlink("loop.md", tmp_path / "loop.md")
    refusals = []

    async def scenario():
        async with running_assistant(tmp_path / "profile", fake_openai) as assistant:
            for path in (tmp_path / "x.txt", "/dev/zero", tmp_path / "loop.md"):
                with pytest.raises(DocumentReadError) as refused:
                    await assistant.attachments.attach_file(path, None)
                refusals.append(str(refused.value))
            return await assistant.attachments.of_conversation(None)

    held = run(scenario())
    assert held == [] and not list((tmp_path / "profile" / "attachments").glob("*/*"))
    assert refusals[0] == f"x.txt is a named pipe (FIFO), not a regular file; {ONLY}"
    assert refusals[1].startswith("zero: files of this type")  # refused by its kind first
    assert refusals[2].startswith("loop.md is a symbolic link that loops")


def test_a_device_with_a_supported_name_is_not_read(tmp_path):
    os.symlink("/dev/zero", tmp_path / "zero.txt")

    async def scenario():
        async with documents_at(tmp_path / "acai.sqlite3", runner=False) as (service, _):
            return await service.add([tmp_path / "zero.txt"])

    report = run(scenario())
    assert report.refused == [
        (str(tmp_path / "zero.txt"), f"zero.txt is a device, not a regular file; {ONLY}")
    ]


@pytest.mark.parametrize("source", ["chatgpt", "claude"])
def test_an_import_of_a_pipe_is_refused(tmp_path, source):
    pipe = tmp_path / "conversations.json"
    os.mkfifo(pipe)
    with pytest.raises(ImportFileError, match=r"is a named pipe \(FIFO\), not a regular file"):
        read_export(source, pipe)
