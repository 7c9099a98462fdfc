-- 0001_init: the tables of the store contracts. Every table is keyed by agent: one process
-- runs several agents, each with its own bot and its own view of the same chat ids.
-- Times are Unix milliseconds (UTC); NULL stands for "not yet" (edited, done_at, sent_at).
-- JSON columns hold the shapes in codec.go. Nothing here is ever deleted by mynah.

CREATE TABLE chats (
	agent      TEXT    NOT NULL,
	chat_id    INTEGER NOT NULL,
	type       TEXT    NOT NULL,
	title      TEXT    NOT NULL,
	username   TEXT    NOT NULL,
	is_forum   INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (agent, chat_id)
) STRICT;

CREATE TABLE users (
	agent      TEXT    NOT NULL,
	user_id    INTEGER NOT NULL,
	first_name TEXT    NOT NULL,
	last_name  TEXT    NOT NULL,
	username   TEXT    NOT NULL,
	is_bot     INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (agent, user_id)
) STRICT;

-- messages is the conversation as each agent saw it, inbound and outgoing. A rowid table
-- (not WITHOUT ROWID) because rows can be large: a 100 KB text would bloat a clustered key.
-- History without a thread walks the primary key backwards from the newest id.
CREATE TABLE messages (
	agent             TEXT    NOT NULL,
	chat_id           INTEGER NOT NULL,
	message_id        INTEGER NOT NULL,
	thread_id         INTEGER NOT NULL,
	sender_id         INTEGER NOT NULL,
	sender_first_name TEXT    NOT NULL,
	sender_last_name  TEXT    NOT NULL,
	sender_username   TEXT    NOT NULL,
	sender_is_bot     INTEGER NOT NULL,
	time              INTEGER NOT NULL,
	edited            INTEGER,
	text              TEXT    NOT NULL,
	entities          TEXT, -- JSON array, NULL when none
	reply_to          TEXT, -- JSON object, NULL when none
	forward           TEXT, -- JSON object, NULL when none
	media             TEXT, -- JSON array, NULL when none
	outgoing          INTEGER NOT NULL,
	stored_at         INTEGER NOT NULL,
	PRIMARY KEY (agent, chat_id, message_id),
	FOREIGN KEY (agent, chat_id) REFERENCES chats (agent, chat_id)
) STRICT;

-- History of one forum topic.
CREATE INDEX messages_thread ON messages (agent, chat_id, thread_id, message_id);

-- sessions is the history of resets; the current session is the row with the highest id.
CREATE TABLE sessions (
	id       INTEGER PRIMARY KEY,
	agent    TEXT    NOT NULL,
	chat_id  INTEGER NOT NULL,
	start_id INTEGER NOT NULL,
	started  INTEGER NOT NULL,
	FOREIGN KEY (agent, chat_id) REFERENCES chats (agent, chat_id)
) STRICT;

CREATE INDEX sessions_chat ON sessions (agent, chat_id, id);

-- updates holds the dedupe keys of accepted Telegram updates.
CREATE TABLE updates (
	agent       TEXT    NOT NULL,
	update_id   INTEGER NOT NULL,
	accepted_at INTEGER NOT NULL,
	PRIMARY KEY (agent, update_id)
) STRICT, WITHOUT ROWID;

CREATE TABLE turns (
	id        INTEGER PRIMARY KEY,
	agent     TEXT    NOT NULL,
	chat_id   INTEGER NOT NULL,
	thread_id INTEGER NOT NULL,
	target    INTEGER NOT NULL,
	static    TEXT    NOT NULL,
	reply_to  INTEGER NOT NULL,
	created   INTEGER NOT NULL,
	done_at   INTEGER,
	FOREIGN KEY (agent, chat_id) REFERENCES chats (agent, chat_id)
) STRICT;

-- Pending turns: the partial index holds only undone rows, so it stays small forever.
CREATE INDEX turns_pending ON turns (agent, id) WHERE done_at IS NULL;

CREATE TABLE outbox (
	id            INTEGER PRIMARY KEY,
	agent         TEXT    NOT NULL,
	chat_id       INTEGER NOT NULL,
	thread_id     INTEGER NOT NULL,
	key           TEXT    NOT NULL,
	html          TEXT    NOT NULL,
	plain         TEXT    NOT NULL,
	reply_to      INTEGER NOT NULL,
	turn_id       INTEGER REFERENCES turns (id),
	created       INTEGER NOT NULL,
	sent_at       INTEGER,
	tg_message_id INTEGER,
	failed_at     INTEGER,
	failed_reason TEXT,
	UNIQUE (agent, key)
) STRICT;

-- Pending parts: unsent and not failed.
CREATE INDEX outbox_pending ON outbox (agent, id) WHERE sent_at IS NULL AND failed_at IS NULL;

CREATE TABLE usage (
	id            INTEGER PRIMARY KEY,
	agent         TEXT    NOT NULL,
	chat_id       INTEGER NOT NULL,
	model         TEXT    NOT NULL,
	input_tokens  INTEGER NOT NULL,
	output_tokens INTEGER NOT NULL,
	cached_tokens INTEGER NOT NULL,
	time          INTEGER NOT NULL
) STRICT;

CREATE INDEX usage_agent_time ON usage (agent, time);

-- chat_state is per-chat delivery state; a chat without a row is not blocked.
CREATE TABLE chat_state (
	agent      TEXT    NOT NULL,
	chat_id    INTEGER NOT NULL,
	blocked    INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (agent, chat_id)
) STRICT, WITHOUT ROWID;
