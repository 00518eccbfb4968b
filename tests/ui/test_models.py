"""The Qt models translate core records and events; qtmodeltester checks each one."""

from __future__ import annotations

from PySide6.QtCore import Qt

from acai_desktop.core.events import MessageDelta
from acai_desktop.core.records.conversations import Conversation, Message, MessageStatus
from acai_desktop.core.records.memories import MemoryItem, MemoryKind, MemoryStatus, Origin
from acai_desktop.ui.models.conversations_model import ConversationRoles, ConversationsModel
from acai_desktop.ui.models.messages_model import MessageRoles, MessagesModel

AT = "2025-01-02T10:00:00+00:00"


def message(id, role="user", content="hi", status=MessageStatus.COMPLETE, conversation_id=1):
    return Message(id, conversation_id, role, content, status, AT)


def memory(id, content="The user prefers tea", status=MemoryStatus.ACTIVE, **kw):
    created = kw.pop("created_at", f"2025-01-0{id}T10:00:00+00:00")
    return MemoryItem(
        id, MemoryKind.FACT, content, Origin.CRITICAL_INFO, created, created, status=status, **kw
    )


def test_messages_model_inserts_streams_one_role_and_finishes(qtmodeltester, qtbot):
    # check() also stays connected and checks every later change of the model.
    model = MessagesModel()
    model.set_conversation(1, [message(1, content="Hello")])
    qtmodeltester.check(model, force_py=True)
    with qtbot.waitSignal(model.rowsInserted, timeout=1000):
        model.on_message_added(message(2, "assistant", "", MessageStatus.STREAMING))
    model.on_message_added(message(9, conversation_id=2))  # another conversation: ignored
    model.on_message_added(message(2, "assistant", ""))  # already shown: ignored
    assert model.rowCount() == 2

    changes = []
    model.dataChanged.connect(lambda top, bottom, roles: changes.append((top.row(), roles)))
    model.on_message_updated(MessageDelta(2, 1, "Hi ", "Hi ", MessageStatus.STREAMING))
    model.on_message_updated(MessageDelta(2, 1, "there", "Hi there", MessageStatus.STREAMING))
    assert changes == []  # chunks are gathered, then announced once per batch
    qtbot.waitUntil(lambda: changes == [(1, [MessageRoles.CONTENT])], timeout=1000)
    index = model.index(1)
    assert index.data(MessageRoles.CONTENT) == "Hi there"
    assert index.data(MessageRoles.STATUS) == "streaming"

    model.on_message_updated(MessageDelta(2, 1, "", "Hi there", MessageStatus.ERROR))
    assert MessageRoles.STATUS in changes[-1][1]
    failed = Message(2, 1, "assistant", "Hi there", MessageStatus.ERROR, AT, error="Server down")
    model.update_message(failed)
    assert index.data(MessageRoles.ERROR) == "Server down"
    # A retry restarts the answer: the old error goes.
    model.on_message_updated(MessageDelta(2, 1, "", "", MessageStatus.STREAMING))
    assert index.data(MessageRoles.ERROR) is None
    assert index.data(MessageRoles.STATUS) == "streaming"

    model.set_sources_count(2, 3)
    assert index.data(MessageRoles.SOURCES_COUNT) == 3
    assert model.index(0).data(MessageRoles.SOURCES_COUNT) is None
    model.on_message_updated(MessageDelta(99, 1, "x", "x", MessageStatus.STREAMING))  # unknown

    model.set_conversation(None, [])
    assert model.rowCount() == 0
    model.on_message_added(message(10))  # a new chat has no id yet: nothing is shown
    assert model.rowCount() == 0


def test_conversations_model_moves_the_active_one_first(qtmodeltester):
    def conversation(id, title, updated):
        return Conversation(id, title, AT, f"2025-01-0{updated}T10:00:00+00:00")

    model = ConversationsModel()
    model.set_conversations(
        [
            conversation(1, "Backend", 1),
            conversation(2, "", 3),
            Conversation(3, "Scratch", AT, AT, temporary=True),
        ]
    )
    qtmodeltester.check(model, force_py=True)
    assert [model.index(r).data() for r in range(model.rowCount())] == [
        "New conversation",
        "Scratch",
        "Backend",
    ]
    # A temporary chat is listed, marked.
    assert [model.index(r).data(ConversationRoles.TEMPORARY) for r in range(3)] == [
        False,
        True,
        False,
    ]
    assert "nothing is remembered" in model.index(1).data(Qt.ItemDataRole.ToolTipRole)
    model.on_conversation_changed(conversation(1, "Backend choices", 4))
    assert model.index(0).data(ConversationRoles.TITLE) == "Backend choices"
    assert model.index(1).data(ConversationRoles.ID) == 2
    model.on_conversation_changed(conversation(5, "Trip", 5))
    assert model.row_of(5) == 0 and model.rowCount() == 4
    assert model.index(0).data(ConversationRoles.CONVERSATION).title == "Trip"


def test_conversations_model_keeps_pinned_chats_first(qtmodeltester):
    def conversation(id, updated, pinned=False):
        at = f"2025-01-0{updated}T10:00:00+00:00"
        return Conversation(id, f"Chat {id}", AT, at, pinned=pinned)

    model = ConversationsModel()
    model.set_conversations([conversation(1, 1, pinned=True), conversation(2, 3)])
    qtmodeltester.check(model, force_py=True)

    def ids() -> list[int]:
        return [model.index(r).data(ConversationRoles.ID) for r in range(model.rowCount())]

    assert ids() == [1, 2]  # pinned first, though older
    assert model.index(0).data(ConversationRoles.PINNED) is True
    model.on_conversation_changed(conversation(2, 5))  # new activity: still under it
    assert ids() == [1, 2]
    model.on_conversation_changed(conversation(2, 5, pinned=True))  # both pinned: latest
    assert ids() == [2, 1]
    model.on_conversation_changed(conversation(2, 5))  # unpinned: back under the pinned
    assert ids() == [1, 2]
    model.on_conversation_changed(conversation(3, 6))  # a new chat goes under the pinned
    assert ids() == [1, 3, 2]


def test_event_bridge_relays_core_events_until_detached(qtbot):
    from acai_desktop.core import events as ev
    from acai_desktop.core.events import EventBus
    from acai_desktop.ui.event_bridge import EventBridge

    bus, bridge = EventBus(), EventBridge()
    bridge.attach(bus)
    added = message(1)
    with qtbot.waitSignal(bridge.message_added, timeout=1000) as blocker:
        bus.emit(ev.MessageAdded(added))
    assert blocker.args == [added]
    forgotten = memory(1)
    with qtbot.waitSignal(bridge.memory_removed, timeout=1000) as blocker:
        bus.emit(ev.MemoryRemoved(forgotten))
    assert blocker.args == [forgotten]
    # The payloads the UI always had: the record, an id, a progress dict.
    with qtbot.waitSignal(bridge.conversation_removed, timeout=1000) as blocker:
        bus.emit(ev.ConversationRemoved(7))
    assert blocker.args == [7]
    with qtbot.waitSignal(bridge.instructions_changed, timeout=1000) as blocker:
        bus.emit(ev.InstructionsChanged(None))
    assert blocker.args == [None]
    with qtbot.waitSignal(bridge.embedding_progress_changed, timeout=1000) as blocker:
        bus.emit(ev.EmbeddingProgress(done=2, total=5))
    assert blocker.args == [{"done": 2, "total": 5}]
    finished = ev.AnswerFinished(added)
    with qtbot.waitSignal(bridge.answer_finished, timeout=1000) as blocker:
        bus.emit(finished)
    assert blocker.args == [finished]
    bridge.detach()
    with qtbot.assertNotEmitted(bridge.message_added):
        bus.emit(ev.MessageAdded(added))


def test_an_answer_known_to_use_nothing_says_nothing_relevant_was_remembered(qtbot):
    from dataclasses import replace

    from acai_desktop.core.turns.token_usage import TokenUsage
    from acai_desktop.ui.widgets.message_delegate import (
        NOTHING_RELEVANT_NOTE,
        SOURCES,
        WHY_NOT_LABEL,
        footer_of,
    )

    model = MessagesModel()
    answered = replace(message(2, "assistant", "Sure."), usage=TokenUsage())  # by a turn
    imported = message(4, "assistant", "From an export.")  # no turn wrote it
    model.set_conversation(1, [message(1), answered, message(3, "assistant", "Old."), imported])
    model.set_sources_count(2, 0)
    model.set_sources_count(4, 0)
    notes, actions = footer_of(model.index(1))
    assert (NOTHING_RELEVANT_NOTE, "faint") in notes
    # Its (empty) Sources, whose "Why not …?" finds what should have been used.
    assert (SOURCES, WHY_NOT_LABEL) in actions
    # Unknown (an answer from before sources were counted, or imported): nothing claimed.
    for row in (2, 3):
        notes, _ = footer_of(model.index(row))
        assert NOTHING_RELEVANT_NOTE not in [text for text, _ in notes]
    model.set_sources_count(2, 2)
    notes, actions = footer_of(model.index(1))
    assert NOTHING_RELEVANT_NOTE not in [text for text, _ in notes]
    assert (SOURCES, "Sources (2)") in actions


def test_every_list_model_shares_one_base(qapp):
    """rowCount, roleNames, a bounds-checked data() and row_of live in one class."""
    from acai_desktop.ui.models.documents_model import DocumentRoles, DocumentsModel
    from acai_desktop.ui.models.memories_model import MemoriesModel, MemoryRoles
    from acai_desktop.ui.models.record_list_model import RecordListModel
    from acai_desktop.ui.models.search_results_model import SearchResultsModel, SearchRoles

    models = {
        MessagesModel: MessageRoles,
        ConversationsModel: ConversationRoles,
        MemoriesModel: MemoryRoles,
        DocumentsModel: DocumentRoles,
        SearchResultsModel: SearchRoles,
    }
    for model_class, roles in models.items():
        assert issubclass(model_class, RecordListModel)
        for method in ("rowCount", "roleNames", "data"):
            assert method not in vars(model_class), f"{model_class.__name__}.{method}"
        model = model_class()
        assert model.roleNames() == {role.value: role.name.lower().encode() for role in roles}
        assert model.rowCount() == 0 and model.data(model.index(0)) is None
    conversations = ConversationsModel()
    conversations.set_conversations([Conversation(4, "Tea", AT, AT), Conversation(9, "", AT, AT)])
    assert conversations.row_of(4) == 1 and conversations.row_of(5) is None
    assert conversations.data(conversations.index(2), Qt.ItemDataRole.DisplayRole) is None


def test_conversations_model_groups_chats_under_their_projects(qtmodeltester):
    from acai_desktop.core.records.projects import Project
    from acai_desktop.ui.models.conversations_model import OUTSIDE_PROJECTS

    def conversation(id, updated, project_id=None, pinned=False):
        at = f"2025-01-0{updated}T10:00:00+00:00"
        return Conversation(id, f"Chat {id}", AT, at, pinned=pinned, project_id=project_id)

    model = ConversationsModel()
    model.set_conversations([conversation(1, 1), conversation(2, 2, 7), conversation(3, 3)])

    def shown() -> list:
        return [
            ("#" if model.index(r).data(ConversationRoles.HEADER) else "")
            + str(model.index(r).data(Qt.ItemDataRole.DisplayRole))
            for r in range(model.rowCount())
        ]

    # Without projects nothing changes: no header; a project's chat waits for its name.
    assert shown() == ["Chat 3", "Chat 2", "Chat 1"]
    model.set_projects([Project(7, "Taxes", AT, AT), Project(8, "garden", AT, AT)])
    qtmodeltester.check(model, force_py=True)
    assert shown() == ["#garden", "#Taxes", "Chat 2", f"#{OUTSIDE_PROJECTS}", "Chat 3", "Chat 1"]
    header = model.index(0)
    assert not (model.flags(header) & Qt.ItemFlag.ItemIsSelectable)
    assert header.data(ConversationRoles.ID) is None
    assert header.data(ConversationRoles.PROJECT_ID) == 8
    # New activity moves a chat up within its group; a move changes its group.
    model.on_conversation_changed(conversation(1, 4))
    assert shown()[-2:] == ["Chat 1", "Chat 3"]
    model.on_conversation_changed(conversation(1, 4, 8))
    assert shown() == ["#garden", "Chat 1", "#Taxes", "Chat 2", f"#{OUTSIDE_PROJECTS}", "Chat 3"]
    model.on_conversation_changed(conversation(9, 5, 7))  # a new chat in Taxes
    assert shown()[2:5] == ["#Taxes", "Chat 9", "Chat 2"]
    assert model.row_of(9) == 3
    model.set_projects([])  # the last project deleted: the plain list again
    assert not any(s.startswith("#") for s in shown())
