"""Conversations: chats, their settings and instructions, titles, export."""
