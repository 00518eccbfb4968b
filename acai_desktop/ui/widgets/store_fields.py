"""Settings → Store: where the memory lives (this computer, or a PostgreSQL server: its
address, database, user and password) and "Copy my local memory to the server", with
its progress and the counts it ends with (issue 27 item 2).

The password field is never filled from what is saved (the keyring keeps it); empty
means "keep the saved one".
"""

from __future__ import annotations

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from acai_desktop.core.profile.store_choice import DEFAULT_PORT, ServerAddress
from acai_desktop.ui.untrusted import plain_label
from acai_desktop.ui.widgets.wheel_guard import ignore_wheel_unless_focused

THIS_COMPUTER, A_SERVER = "local", "postgresql"
STORE_CHOICES = {THIS_COMPUTER: "This computer", A_SERVER: "A PostgreSQL server"}
PASSWORD_SAVED_PLACEHOLDER = "Saved in the keyring — leave empty to keep it"
COPY_BUTTON_TEXT = "Copy my local memory to the server"


class StoreFields(QWidget):
    #: (ServerAddress, password typed or "" for the saved one): copy the local memory there
    copy_requested = Signal(object, str)

    def __init__(
        self,
        server: ServerAddress | None,
        *,
        password_saved: bool = False,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.original = server
        self.kind_box = ignore_wheel_unless_focused(QComboBox())
        self.kind_box.setAccessibleName("Store")
        for value, label in STORE_CHOICES.items():
            self.kind_box.addItem(label, value)
        self.host = QLineEdit(server.host if server else "")
        self.host.setPlaceholderText("db.example.org, or a socket folder such as /run/postgresql")
        self.host.setAccessibleName("Server address")
        self.port = ignore_wheel_unless_focused(QSpinBox())
        self.port.setRange(1, 65535)
        self.port.setValue(server.port if server else DEFAULT_PORT)
        self.port.setAccessibleName("Port")
        self.database = QLineEdit(server.database if server else "acai")
        self.database.setAccessibleName("Database")
        self.user = QLineEdit(server.user if server else "")
        self.user.setAccessibleName("User")
        self.password = QLineEdit()
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        self.password.setAccessibleName("Password")
        self.password.setPlaceholderText(PASSWORD_SAVED_PLACEHOLDER if password_saved else "")
        self.copy_button = QPushButton(COPY_BUTTON_TEXT)
        self.copy_progress = QProgressBar()
        self.copy_progress.setVisible(False)
        self.copy_result = plain_label("", "DialogNote")
        self.copy_result.setVisible(False)

        self.server_fields = QWidget()
        form = QFormLayout(self.server_fields)
        form.setContentsMargins(0, 0, 0, 0)
        address_row = QHBoxLayout()
        address_row.setSpacing(6)
        address_row.addWidget(self.host, 1)
        address_row.addWidget(self.port)
        form.addRow("Address", address_row)
        form.addRow("Database", self.database)
        form.addRow("User", self.user)
        form.addRow("Password", self.password)
        form.addRow("", self.copy_button)
        form.addRow("", self.copy_progress)
        form.addRow("", self.copy_result)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.kind_box)
        layout.addWidget(self.server_fields)
        self.kind_box.currentIndexChanged.connect(self._on_kind_box_changed)
        self.copy_button.clicked.connect(self._on_copy_button_clicked)
        self.kind_box.setCurrentIndex(self.kind_box.findData(A_SERVER if server else THIS_COMPUTER))
        self._on_kind_box_changed()

    def _on_kind_box_changed(self) -> None:
        self.server_fields.setVisible(self.kind_box.currentData() == A_SERVER)

    def choice(self) -> ServerAddress | None:
        """The server as typed (None: this computer); InvalidInputError says what's wrong."""
        if self.kind_box.currentData() == THIS_COMPUTER:
            return None
        return ServerAddress(
            host=self.host.text().strip(),
            port=self.port.value(),
            database=self.database.text().strip(),
            user=self.user.text().strip(),
        )

    def typed_password(self) -> str:
        return self.password.text()

    def changed(self) -> bool:
        return self.choice() != self.original or bool(self.typed_password())

    def _on_copy_button_clicked(self) -> None:
        from acai_desktop.core.errors import InvalidInputError

        try:
            server = self.choice()
        except InvalidInputError as error:
            self.show_copy_result(str(error))
            return
        if server is None:
            self.show_copy_result("Choose “A PostgreSQL server” and fill in its address first.")
            return
        self.copy_button.setEnabled(False)
        self.copy_progress.setRange(0, 0)  # busy until the first batch says how many
        self.copy_progress.setVisible(True)
        self.copy_result.setVisible(False)
        self.copy_requested.emit(server, self.typed_password())

    def show_copy_progress(self, table: str, done: int, total: int) -> None:
        self.copy_progress.setRange(0, max(total, 1))
        self.copy_progress.setValue(done)
        self.copy_progress.setFormat(f"{done:,} of {total:,} rows ({table})")

    def show_copy_result(self, text: str) -> None:
        """The copy is over (its counts, or why it stopped): the button comes back."""
        self.copy_button.setEnabled(True)
        self.copy_progress.setVisible(False)
        self.copy_result.setText(text)
        self.copy_result.setVisible(True)
