-- 0010_search_batches: new messages are indexed in batches, not one by one. A trigger
-- indexed each message in the transaction that stored it, and FTS5 writes an index
-- segment per transaction: about 70 µs per message, a third of mynah's CPU per answered
-- message. Now the store indexes what is new in one transaction (IndexPending), which
-- serve runs every second and every search runs first, so a search still sees every
-- stored message. messages is a rowid table from which nothing is deleted: its rowids
-- grow with each insert, and search_progress keeps the last one indexed.
DROP TRIGGER messages_search_insert;

CREATE TABLE search_progress (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	last_rowid INTEGER NOT NULL
) STRICT;

INSERT INTO search_progress (id, last_rowid) SELECT 1, coalesce(max(rowid), 0) FROM messages;

-- An edit of an indexed message replaces its entry; one not indexed yet is indexed with
-- its edited text by the next batch.
DROP TRIGGER messages_search_edit;
CREATE TRIGGER messages_search_edit AFTER UPDATE OF text, media ON messages
WHEN new.message_id BETWEEN 1 AND 2147483647 AND new.rowid <= (SELECT last_rowid FROM search_progress)
BEGIN
	DELETE FROM message_search WHERE rowid = (SELECT key FROM message_search_docs
		WHERE agent = new.agent AND chat_id = new.chat_id AND message_id = new.message_id);
	INSERT INTO message_search (rowid, body, context, previous)
	SELECT key, body, context, previous FROM message_search_docs
	WHERE agent = new.agent AND chat_id = new.chat_id AND message_id = new.message_id;
END;
