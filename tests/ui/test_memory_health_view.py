"""The memory health window over a real session: it opens from the window's action, its
charts hold the profile's figures and follow changes, and `eval updates` runs from it on
the user's (scripted) model in a temporary profile, with progress, a result and a Stop
that halts it, leaving the user's profile as it was."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tempfile
from dataclasses import replace
from datetime import date
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QFileDialog

from acai_desktop.core.profile.paths import Profile
from acai_desktop.evaluation.runs import (
    EVALUATIONS,
    Evaluation,
    EvaluationRequest,
    EvaluationResult,
)
from acai_desktop.evaluation.updates import messages_said
from acai_desktop.ui.app_controller import AppController
from acai_desktop.ui.controllers.memory_health import STILL_OPENING
from acai_desktop.ui.widgets.memory_health_charts import day_x
from acai_lab.scripted_model import fake_model
from acai_lab.scripted_openai import Reply
from tests.core.test_extraction_eval import FIXTURE
from tests.core.test_extraction_eval import responder as extraction_model
from tests.support.aio import run
from tests.support.assistant import running_assistant
from tests.support.gui import gui_session, run_in_session, wait_until


def click(button) -> None:
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def heights(chart, series: str) -> list[float]:
    return [float(h) for h in chart.bars[series].opts["height"]]


def known_profile(data_dir: Path, server) -> Profile:
    """Two facts (the first superseded by a third), a note, one fact and the note used."""

    async def fill():
        async with running_assistant(data_dir, server, start_jobs=False) as assistant:
            memories = assistant.memories
            paris = await memories.remember("The user lives in Paris", explicit=True)
            await memories.remember("The user works as a nurse", explicit=True)
            berlin = await memories.propose_change(
                paris.id, "The user lives in Berlin", actor="critical_info_processor"
            )
            note = await memories.remember("Call the bank on Friday", kind="note", explicit=True)
            await memories.mark_used([berlin.id, note.id])
            await memories.mark_used([note.id])

    run(fill())
    return Profile.at(data_dir)


async def open_view(session: AppController):
    window = session.window
    window.memory_health_action.trigger()
    dialog = await wait_until(lambda: window.dialogs.health)
    await wait_until(lambda: dialog.isVisible() and dialog.health is not None)
    return dialog


async def profile_state(session: AppController) -> tuple:
    assistant = session.assistant

    def counts(db):
        return tuple(
            db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("memories", "conversations", "messages", "memory_events")
        )

    files = sorted(path.name for path in session.profile.data_dir.iterdir())
    settings = session.profile.settings_path.read_bytes()
    return await assistant._store.run(counts), files, settings


@pytest.fixture(autouse=True)
def own_temporary_folder(tmp_path, monkeypatch):
    """Each test's evaluations make their temporary profiles in a folder of its own, so a
    test running at the same time in another worker can't show up in `eval_dirs`."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))


def eval_dirs() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("acai-eval-updates-*")}


def test_the_view_opens_from_the_window_and_charts_the_profile(qapp, tmp_path, fake_openai):
    profile = known_profile(tmp_path / "profile", fake_openai)
    today = date.today()

    async def scenario(session: AppController):
        dialog = await open_view(session)
        assert dialog.accessibleName() == "Memory health"
        kinds = dialog.kind_status_chart
        assert heights(kinds, "active") == [2, 0, 1]  # facts, summaries, notes
        assert heights(kinds, "superseded") == [1, 0, 0]
        assert heights(kinds, "forgotten") == [0, 0, 0]
        facts = dialog.facts_chart
        assert list(facts.bars["facts"].opts["x"]) == [day_x(today)]
        assert heights(facts, "facts") == [3]
        # Use counts of the current memories: nurse 0, Berlin 1, the note 2.
        assert heights(dialog.use_count_chart, "memories") == [1, 1, 1, 0, 0]
        assert heights(dialog.neglect_chart, "memories") == [1, 0, 1]
        assert dialog.never_used_figure.value.text() == "1"
        assert dialog.stale_figure.value.text() == "1"
        size = dialog.health.database
        assert size.total_bytes > 0
        assert heights(dialog.size_chart, "KB") == [size.file_bytes / 1024, size.wal_bytes / 1024]
        assert "facts: 2, notes: 1" in kinds.accessibleDescription().replace("active: ", "")
        assert "90 days" in dialog.definitions.text()

        # A memory written while the view is open shows without asking.
        await session.assistant.memories.remember("Water the plants", kind="note", explicit=True)
        await wait_until(lambda: heights(kinds, "active") == [2, 0, 2])
        assert dialog.current_figure.value.text() == "4"

        # While the profile reopens (a reconnect), the view says so, then reads again.
        session.reconnect()
        await wait_until(lambda: session.assistant is None, timeout=5)
        click(dialog.refresh_button)
        assert dialog.status_label.text() == STILL_OPENING
        await wait_until(lambda: dialog.status_label.text().startswith("Read at"))
        assert session.assistant is not None

        # Closed and opened again: the same window.
        dialog.close_button.click()
        assert not dialog.isVisible()
        session.window.memory_health_button.click()
        assert session.window.dialogs.health is dialog and dialog.isVisible()

    run_in_session(gui_session(profile), scenario)


def test_eval_updates_runs_on_the_users_model_and_leaves_the_profile_alone(
    qapp, tmp_path, fake_openai
):
    profile = known_profile(tmp_path / "profile", fake_openai)
    before_dirs = eval_dirs()

    async def scenario(session: AppController):
        dialog = await open_view(session)
        before = await profile_state(session)
        requests_before = len(fake_openai.chat_requests())
        panel = dialog.evaluation
        dialog.tabs.setCurrentWidget(panel)
        panel.choose("updates")
        assert not panel.dataset_row.isEnabled()  # no dataset for this one
        assert "triage fake-triage" in panel.model.text() and "(custom)" in panel.model.text()
        click(panel.run_button)
        assert panel.running and panel.stop_button.isEnabled()
        await wait_until(lambda: "update accuracy" in panel.results.toPlainText(), timeout=90)
        assert not panel.running and panel.run_button.isEnabled()
        text = " ".join(panel.results.toPlainText().split())
        assert "update accuracy 100.0%" in text, text
        assert "stale memory rate 0.0%" in text, text
        total = len(messages_said())
        assert (panel.progress.value(), panel.progress.maximum()) == (total, total)
        # The scripted model answered the profile's own models (configured for triage).
        used = {r.json["model"] for r in fake_openai.chat_requests()[requests_before:]}
        assert "fake-triage" in used
        assert await profile_state(session) == before

    run_in_session(gui_session(profile), scenario)
    assert eval_dirs() == before_dirs  # the temporary profile is gone


def test_stop_halts_a_run_and_the_window_stays_responsive(qapp, tmp_path, fake_openai):
    profile = known_profile(tmp_path / "profile", fake_openai)
    before_dirs = eval_dirs()

    def slow(body: dict) -> Reply:
        reply = fake_model(body)
        reply.delay = 0.3
        return reply

    async def scenario(session: AppController):
        dialog = await open_view(session)
        before = await profile_state(session)
        panel = dialog.evaluation
        dialog.tabs.setCurrentWidget(panel)
        panel.choose("updates")
        fake_openai.responder = slow
        click(panel.run_button)
        await wait_until(lambda: panel.progress.value() >= 1, timeout=60)
        # While it runs, the window answers: the figures can be read again.
        dialog.tabs.setCurrentIndex(0)
        dialog.status_label.setText("")
        click(dialog.refresh_button)
        await wait_until(lambda: dialog.status_label.text().startswith("Read at"))
        dialog.tabs.setCurrentWidget(panel)
        click(panel.stop_button)
        await wait_until(lambda: not panel.running, timeout=20)
        assert panel.state.text().startswith("Stopped")
        assert panel.results.toPlainText() == ""
        assert panel.progress.value() < len(messages_said())
        calls = len(fake_openai.chat_requests())
        await asyncio.sleep(1.0)
        assert len(fake_openai.chat_requests()) == calls  # nothing runs on
        assert session.tasks.get("evaluation") is None
        assert await profile_state(session) == before
        assert eval_dirs() == before_dirs

    run_in_session(gui_session(profile), scenario)


def test_eval_extraction_runs_on_a_dataset_chosen_in_a_file_dialog(qapp, tmp_path, fake_openai):
    profile = known_profile(tmp_path / "profile", fake_openai)
    dataset = str(Path(FIXTURE).resolve())

    async def scenario(session: AppController):
        dialog = await open_view(session)
        before = await profile_state(session)
        panel = dialog.evaluation
        dialog.tabs.setCurrentWidget(panel)
        panel.choose("extraction")
        assert panel.dataset_row.isEnabled() and panel.limit.isEnabled()

        # Without a file: said, nothing runs.
        click(panel.run_button)
        assert not panel.running and "Choose a LoCoMo-format dataset" in panel.error.text()
        # A file that isn't there: the reason, and the view ready for another try.
        panel.dataset.setText(str(tmp_path / "missing.json"))
        click(panel.run_button)
        await wait_until(lambda: not panel.running and "could not run" in panel.error.text())
        assert "Cannot read the dataset" in panel.error.text() and panel.error.isVisible()

        click(panel.browse_button)
        chooser = await wait_until(lambda: panel.findChild(QFileDialog))
        chooser.selectFile(dataset)
        chooser.accept()
        assert panel.dataset.text() == dataset
        # The file dialog remembered its folder in the settings; the run changes nothing.
        before = await profile_state(session)
        panel.limit.setValue(0)  # every session
        fake_openai.responder = extraction_model
        click(panel.run_button)
        await wait_until(lambda: "memory precision" in panel.results.toPlainText(), timeout=90)
        text = " ".join(panel.results.toPlainText().split())
        assert "memory precision 100.0%" in text, text
        assert "memory recall 16.7%" in text, text
        assert panel.progress.value() == panel.progress.maximum() > 1
        assert not panel.error.isVisible()  # the earlier refusal is gone
        assert await profile_state(session) == before

    run_in_session(gui_session(profile), scenario)


def test_closing_the_view_stops_its_run(qapp, tmp_path, fake_openai):
    profile = known_profile(tmp_path / "profile", fake_openai)

    def slow(body: dict) -> Reply:
        reply = fake_model(body)
        reply.delay = 0.3
        return reply

    async def scenario(session: AppController):
        dialog = await open_view(session)
        panel = dialog.evaluation
        panel.choose("updates")
        fake_openai.responder = slow
        click(panel.run_button)
        await wait_until(lambda: panel.progress.value() >= 1, timeout=60)
        dialog.close()
        await wait_until(lambda: session.tasks.get("evaluation") is None, timeout=20)
        assert panel.state.text().startswith("Stopped") and not panel.running

    run_in_session(gui_session(profile), scenario)


def counting(*, heeds_stop: bool) -> Evaluation:
    """An evaluation of 50 quick steps that stops gracefully (if it ``heeds_stop``), as
    ``eval ablation`` does: the runner's other way of stopping."""

    async def count(request: EvaluationRequest, progress) -> EvaluationResult:
        progress.begin(50, "steps", "50 steps: no model calls")
        done = 0
        while done < 50 and not (heeds_stop and request.stop.is_set()):
            await asyncio.sleep(0.05)
            done += 1
            progress.step()
        return EvaluationResult(f"steps done: {done}", {"done": done}, request.stop.is_set())

    return Evaluation("counting", "Counting", "Counts.", False, count, stops_gracefully=True)


def test_an_evaluation_that_stops_gracefully_keeps_its_figures(
    qapp, tmp_path, fake_openai, monkeypatch
):
    profile = known_profile(tmp_path / "profile", fake_openai)
    monkeypatch.setitem(EVALUATIONS, "counting", counting(heeds_stop=True))
    monkeypatch.setitem(
        EVALUATIONS, "stubborn", replace(counting(heeds_stop=False), name="stubborn")
    )

    async def scenario(session: AppController):
        dialog = await open_view(session)
        panel = dialog.evaluation
        panel.choose("counting")
        click(panel.run_button)
        await wait_until(lambda: panel.progress.value() >= 2)
        click(panel.stop_button)
        assert panel.state.text().startswith("Stopping after the step under way")
        await wait_until(lambda: not panel.running)
        assert panel.state.text().startswith("Stopped after")
        done = panel.progress.value()
        assert 2 <= done < 50
        assert panel.results.toPlainText() == f"steps done: {done}"

        # One that doesn't heed it: a second Stop stops it at once, without figures.
        panel.choose("stubborn")
        click(panel.run_button)
        await wait_until(lambda: panel.progress.value() >= 2)
        click(panel.stop_button)
        await asyncio.sleep(0.2)
        assert panel.running
        click(panel.stop_button)
        await wait_until(lambda: not panel.running)
        assert panel.state.text().startswith("Stopped: no figures")
        assert panel.results.toPlainText() == ""

    run_in_session(gui_session(profile), scenario)


def test_the_window_starts_without_loading_the_charting_library():
    """pyqtgraph is loaded when the view opens, never at start-up (a tracked benchmark)."""
    code = (
        "import sys\n"  # offscreen: QT_QPA_PLATFORM is inherited (tests/conftest.py)
        "from acai_desktop.ui.app import create_application\n"
        "from acai_desktop.ui.app_controller import AppController\n"
        "from acai_desktop.ui.main_window import MainWindow\n"
        "app = create_application()\n"
        "window = MainWindow()\n"
        "print('pyqtgraph' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip().splitlines()[-1] == "False"


def test_eval_ablation_runs_from_the_view_on_the_users_model(qapp, tmp_path, fake_openai):
    """The ablation on the user's model, from the view: a reader that answers right
    exactly when the evidence is in its prompt scores nothing on the question alone and
    everything with the whole conversation; the user's profile is untouched."""
    from acai_desktop.evaluation.locomo import load_dataset
    from benchmarks.ablation_oracle import evidence_reader

    profile = known_profile(tmp_path / "profile", fake_openai)
    dataset = Path(FIXTURE).resolve()

    async def scenario(session: AppController):
        dialog = await open_view(session)
        before = await profile_state(session)
        panel = dialog.evaluation
        dialog.tabs.setCurrentWidget(panel)
        panel.choose("ablation")
        assert panel.dataset_row.isEnabled()
        panel.dataset.setText(str(dataset))
        panel.limit.setValue(0)  # every session
        fake_openai.responder = evidence_reader(load_dataset(dataset))
        click(panel.run_button)
        await wait_until(lambda: not panel.running, timeout=120)
        assert not panel.error.isVisible(), panel.error.text()
        text = panel.results.toPlainText()
        rows = {
            line.split()[0]: line.split()
            for line in text.splitlines()
            if line[:4] in ("  A ", "  B ", "  C ", "  D ", "  F ")
        }
        # config, title words…, answered, F1, judge, strict, credited, tokens, off-topic,
        # p50, p95: F1 is 8th from the end.
        f1 = {config: float(cells[-8]) for config, cells in rows.items()}
        assert f1["A"] == 0.0 and f1["B"] == 0.0, text
        # All but the open-domain question (its evidence is no turn's words) found.
        assert f1["C"] == f1["D"] == f1["F"] == 0.875, text
        assert "the whole conversation fit" in text
        assert panel.progress.value() == panel.progress.maximum() > 1
        assert await profile_state(session) == before

    run_in_session(gui_session(profile), scenario)


def test_the_view_fits_a_768_px_screen_and_its_legend_leaves_the_bars_alone(
    qapp, tmp_path, fake_openai
):
    profile = known_profile(tmp_path / "profile", fake_openai)

    async def scenario(session: AppController):
        dialog = await open_view(session)
        room = dialog.screen().availableGeometry()
        # Sized to its screen's height (offscreen: Qt's 800 px virtual one), and able to
        # be as small as a 1366 × 768 laptop's room under a title bar and a panel.
        assert dialog.height() <= room.height() - 50
        least = dialog.minimumSizeHint()
        assert least.width() <= 1366 and least.height() <= 768 - 50
        chart = dialog.kind_status_chart
        assert chart.legend is not None
        plot = chart.getPlotItem().getViewBox().sceneBoundingRect()
        legend = chart.legend.sceneBoundingRect()
        assert legend.top() >= plot.bottom() - 1  # under the plot, not over its bars

    run_in_session(gui_session(profile), scenario)
