"""Code is shown in a face whose glyphs really have equal advances, whatever the desktop
calls "monospace"."""

from PySide6.QtGui import QFont

from acai_desktop.ui.fonts import fixed_width_family, fixed_width_font, has_equal_advances


def test_the_code_font_has_equal_advances(qapp):
    assert has_equal_advances(fixed_width_font())
    assert has_equal_advances(fixed_width_font(9.5))
    assert fixed_width_font(9.5).pointSizeF() == 9.5


def test_a_proportional_preference_is_replaced_by_a_fixed_width_face(qapp):
    proportional = "DejaVu Sans"  # scripts/install-system-deps installs it
    assert not has_equal_advances(QFont(proportional))  # the premise of this test

    family = fixed_width_family(proportional)

    assert family != proportional
    assert has_equal_advances(QFont(family))
