-- 0016_media: what mynah knows about media files, and the messages whose media wait for
-- a description.
--
-- media_notes is the cache of descriptions by Telegram's file_unique_id, which is the same
-- for every bot and every chat: shared by the agents of the instance, so the same sticker
-- sent a thousand times is described once. A failed or unsupported file has a row too, so
-- it is not retried by every message that carries it; an operator deletes the row to have
-- it described again. Descriptions (a document's text) can be tens of kilobytes: a rowid
-- table, as for messages.
CREATE TABLE media_notes (
	unique_id   TEXT    NOT NULL PRIMARY KEY CHECK (unique_id <> ''),
	kind        TEXT    NOT NULL,
	set_name    TEXT    NOT NULL,
	emoji       TEXT    NOT NULL,
	status      TEXT    NOT NULL CHECK (status IN ('described', 'failed', 'unsupported')),
	description TEXT    NOT NULL,
	problem     TEXT    NOT NULL,
	source      TEXT    NOT NULL,
	attempts    INTEGER NOT NULL,
	updated     INTEGER NOT NULL
) STRICT;

-- Listing, most recently updated first.
CREATE INDEX media_notes_updated ON media_notes (updated);

-- media_queue holds the stored messages with an attachment that has a file_unique_id and
-- no description: the store adds a message when it stores it (inbound, sent or edited,
-- never imported: an export carries no file ids a bot could download), the describer
-- removes it when done. due is when it may be worked on (a retry's backoff). The messages
-- themselves are never touched but for their descriptions.
CREATE TABLE media_queue (
	id         INTEGER PRIMARY KEY,
	agent      TEXT    NOT NULL,
	chat_id    INTEGER NOT NULL,
	message_id INTEGER NOT NULL,
	due        INTEGER NOT NULL,
	UNIQUE (agent, chat_id, message_id),
	FOREIGN KEY (agent, chat_id, message_id) REFERENCES messages (agent, chat_id, message_id) ON DELETE CASCADE
) STRICT;

-- The work due, oldest first.
CREATE INDEX media_queue_due ON media_queue (due, id);
