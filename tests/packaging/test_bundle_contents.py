"""What the lean bundle carries: the Qt it uses, the WordLlama model it loads, the
lazily imported packages it will need, and nothing it was meant to leave out."""

from __future__ import annotations

from pathlib import Path

import pytest

from acai_desktop.core.models.embeddings.wordllama_embedder import CONFIG, DIMENSIONS

pytestmark = pytest.mark.e2e

#: The Qt libraries QtCore/QtGui/QtWidgets, the SVG icon and the X11/Wayland platforms need.
QT_LIBRARIES = {"Core", "Gui", "Widgets", "DBus", "Svg", "XcbQpa", "WaylandClient"}


def frozen_modules(bundle: Path) -> set[str]:
    """Names of the Python modules inside the executable's archive."""
    from PyInstaller.archive.readers import CArchiveReader  # the "build" extra

    archive = CArchiveReader(str(bundle / "acai-desktop"))
    (pyz,) = [name for name in archive.toc if name.endswith(".pyz")]
    return set(archive.open_embedded_archive(pyz).toc)


def test_only_the_qt_the_app_uses(lean_bundle):
    qt = lean_bundle / "_internal/PySide6/Qt"
    libraries = {p.name.removeprefix("libQt6").split(".")[0] for p in qt.glob("lib/libQt6*")}
    assert libraries == QT_LIBRARIES
    assert not (qt / "translations").exists()
    platforms = {p.name for p in (qt / "plugins/platforms").iterdir()}
    assert platforms == {"libqxcb.so", "libqwayland.so", "libqoffscreen.so", "libqminimal.so"}
    bindings = {p.name.split(".")[0] for p in (lean_bundle / "_internal/PySide6").glob("Qt*.so")}
    assert bindings == {"QtCore", "QtGui", "QtWidgets", "QtDBus", "QtSvg"}
    # Every top-level link to a Qt library points at one that is there.
    for link in (lean_bundle / "_internal").glob("libQt6*"):
        assert link.resolve().is_file(), f"{link.name} dangles"


def test_the_desktops_own_libraries_come_from_the_system(lean_bundle):
    internal = lean_bundle / "_internal"
    for name in ("libfontconfig.so.1", "libX11.so.6", "libglib-2.0.so.0", "libdbus-1.so.3"):
        assert not (internal / name).exists(), f"{name} is bundled"
    # Qt 6's xcb platform needs it and many desktops lack it: bundled.
    assert (internal / "libxcb-cursor.so.0").is_file()


def test_only_the_wordllama_model_the_embedder_loads(lean_bundle):
    wordllama = lean_bundle / "_internal/wordllama"
    weights = sorted(p.name for p in wordllama.rglob("*.safetensors"))
    assert weights == [f"{CONFIG}_{DIMENSIONS}.safetensors"]
    assert (wordllama / f"tokenizers/{CONFIG}_tokenizer_config.json").is_file()


def test_lazily_imported_packages_are_inside_and_left_out_ones_are_not(lean_bundle):
    modules = frozen_modules(lean_bundle)
    # Imported only when a PDF is added or the memory health view opens.
    assert {"pypdf", "pypdf._reader", "pyqtgraph", "pyqtgraph.graphicsItems.PlotItem"} <= modules
    # Imported only for a PostgreSQL store: the client and its binary libpq wrapper.
    assert {"psycopg", "psycopg.pq", "psycopg_binary"} <= modules
    assert list((lean_bundle / "_internal").rglob("libpq*.so*")), "libpq is not bundled"
    unwanted = (
        *("pyqtgraph.opengl", "pyqtgraph.jupyter", "pyqtgraph.examples"),
        *("llama_cpp", "uvicorn", "pytest", "PyInstaller", "tkinter", "yaml"),
        "PySide6.QtNetwork",
    )
    assert not [m for m in modules if m.startswith(unwanted)]


def test_pyqtgraph_data_the_app_never_reads_is_left_out(lean_bundle):
    pyqtgraph = lean_bundle / "_internal/pyqtgraph"
    assert (pyqtgraph / "icons/auto.png").is_file()  # the plots' auto-range button
    assert not (pyqtgraph / "colors/maps").exists()
    assert not (pyqtgraph / "icons/peegee").exists()


def test_the_benchmarks_stay_out_of_the_bundle_and_the_lab_is_in(lean_bundle):
    """benchmarks/ (bench and the developer evaluations) is not the product: the bundle
    has the app's modules and the Memory health evaluations, not it. It has the lab its
    --self-test runs (the wheel does not)."""
    modules = frozen_modules(lean_bundle)
    assert {"acai_desktop.cli", "acai_desktop.evaluation.runs"} <= modules
    assert {"acai_lab.self_test", "acai_lab.scripted_openai", "acai_lab.none_refcount"} <= modules
    assert not [m for m in modules if m == "benchmarks" or m.startswith("benchmarks.")]
    assert "acai_desktop.commands.bench" not in modules
