-- A finished table's chat (archive/chat.py): one row per table that has one, apart from
-- the log (chat is not in the hash chain). "chat" is the chat stream's entries, deletion
-- markers included, compressed; "messages" counts them. An archive made before this
-- migration gains the table and keeps every row it had.
CREATE TABLE IF NOT EXISTS archived_chats (
    table_id TEXT PRIMARY KEY REFERENCES archived_tables (table_id),
    chat_format SMALLINT NOT NULL,
    messages INTEGER NOT NULL,
    chat {blob} NOT NULL
)
