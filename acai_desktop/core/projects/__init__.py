"""Projects: chats, documents and memories grouped, and their names' rule."""
