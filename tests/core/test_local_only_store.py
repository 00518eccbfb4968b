"""What counts as local only (core/store/local_only.py), on both stores: a memory, chat,
project or document the user marked, and what a marked chat or project holds."""

from __future__ import annotations

from acai_desktop.core.store import local_only as rows
from acai_desktop.core.store.conversations import add_message, create_conversation
from acai_desktop.core.store.documents import queue_document
from acai_desktop.core.store.local_only import NOTHING, LocalOnly
from acai_desktop.core.store.projects import create_project
from tests.support.aio import run
from tests.support.memory import memory_services


def test_marks_and_what_they_carry(store_location, tmp_path):
    async def scenario():
        async with memory_services(tmp_path, store_location=store_location) as (store, memory, _):

            def setup(db):
                project = create_project(db, "Health")
                alone, inside = (
                    create_conversation(db),
                    create_conversation(db, "", False, project.id),
                )
                said = [add_message(db, c.id, "user", "hi").id for c in (alone, inside)]
                library, _ = queue_document(db, "/docs/a.txt", "a.txt", "text", 1)
                attached, _ = queue_document(
                    db, "/att/b.txt", "b.txt", "text", 1, attachment=True,
                    conversation_id=alone.id,
                )  # fmt: skip
                kept, _ = queue_document(db, "/docs/c.txt", "c.txt", "text", 1)
                db.execute(
                    "UPDATE documents SET project_id = ? WHERE id = ?", [project.id, kept.id]
                )
                return project, alone, inside, said, (library.id, attached.id, kept.id)

            project, alone, inside, said, (library, attached, kept) = await store.run(setup)
            own = await memory.remember("The user's locker code is 4921")
            learned = await memory.remember("The user lives in Porto", conversation_id=alone.id)
            plain = await memory.remember("The user likes tea")
            states = [await store.run(rows.local_only_items)]
            await memory.set_local_only(own.id, True)
            states.append(await store.run(rows.local_only_items))
            await store.run(rows.set_chat_local_only, alone.id, True)
            states.append(await store.run(rows.local_only_items))
            await store.run(rows.set_project_local_only, project.id, True)
            await store.run(rows.set_document_local_only, library, True)
            states.append(await store.run(rows.local_only_items))
            private = [await store.run(rows.is_private_chat, c.id) for c in (alone, inside)]
            await store.run(rows.set_chat_local_only, alone.id, False)
            states.append(await store.run(rows.local_only_items))
            history = await memory.history(own.id)
            ids = own.id, learned.id, plain.id, said, library, attached, kept
            return states, private, history, ids

    states, private, history, ids = run(scenario())
    own, learned, plain, (said_alone, said_inside), library, attached, kept = ids
    nothing, one, chat, project, unmarked = states
    assert nothing is NOTHING and not nothing
    assert one == LocalOnly(frozenset({own}))
    # A marked chat carries its messages, its attachments and what was learned in it.
    assert chat == LocalOnly(
        frozenset({own, learned}), frozenset({said_alone}), frozenset({attached})
    )
    # A marked project carries its chats' messages and its documents.
    assert project.message_ids == {said_alone, said_inside}
    assert project.document_ids == {library, attached, kept}
    assert private == [True, True]
    # Unmarked, the chat frees what it carried; the project's and the user's marks stay.
    assert unmarked.memory_ids == {own} and unmarked.message_ids == {said_inside}
    assert plain not in unmarked.memory_ids
    assert [event.action for event in history][-1] == "marked local only"
