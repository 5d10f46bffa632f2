"""The table service and the chat adapters (console, Telegram, Discord)."""
