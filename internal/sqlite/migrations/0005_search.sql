-- 0005_search: the history index. Every stored message (live, imported, outgoing) is
-- searchable with BM25, kept in sync by triggers, so no write path can forget it.
--
-- Search is scoped to one agent, often to one chat, and must cost what the scope holds,
-- not what the whole database holds (a term in most rows of a big index costs ~200 ms).
-- FTS5 seeks rowid ranges in its doclists, so the index key places each chat's messages in
-- one contiguous range inside its agent's range:
--
--   key = agent_no << 53 | chat_no << 31 | message_id      (scope = agent_no << 22 | chat_no)
--
-- agent_no 1..1023, chat_no 0..4194303 per agent, message_id 1..2^31-1 (Telegram's ids
-- are 32-bit). A message outside these bounds is stored as usual but not indexed.
CREATE TABLE search_agents (
	agent_no INTEGER PRIMARY KEY,
	agent    TEXT NOT NULL UNIQUE
) STRICT;

CREATE TABLE search_chats (
	scope   INTEGER PRIMARY KEY,
	agent   TEXT    NOT NULL,
	chat_id INTEGER NOT NULL,
	UNIQUE (agent, chat_id)
) STRICT;

-- Contentless: the text lives in messages; the index holds only what search needs.
-- body is what was said (text, caption, media descriptions); context is who said it and
-- when (sender's names, month and year); previous is what it answers (the text it replies
-- to, and the message before it in the chat), so that an answer is found by the words of
-- its question. The columns are weighted apart at query time.
CREATE VIRTUAL TABLE message_search USING fts5(
	body, context, previous,
	content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

-- message_search_docs is the one definition of what a message's index entry holds, used
-- by the triggers and the backfill below.
CREATE VIEW message_search_docs AS
SELECT (sc.scope << 31) | m.message_id AS key,
	m.agent AS agent, m.chat_id AS chat_id, m.message_id AS message_id,
	m.text || coalesce((SELECT ' ' || group_concat(json_extract(value, '$.description'), ' ')
		FROM json_each(m.media) WHERE json_extract(value, '$.description') <> ''), '') AS body,
	trim(m.sender_first_name || ' ' || m.sender_last_name || ' ' || m.sender_username) || ' ' ||
	CASE strftime('%m', m.time / 1000, 'unixepoch')
		WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March'
		WHEN '04' THEN 'April' WHEN '05' THEN 'May' WHEN '06' THEN 'June'
		WHEN '07' THEN 'July' WHEN '08' THEN 'August' WHEN '09' THEN 'September'
		WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END || ' ' ||
	strftime('%Y', m.time / 1000, 'unixepoch') AS context,
	coalesce(json_extract(m.reply_to, '$.text') || ' ', '') ||
	coalesce((SELECT p.text FROM messages p WHERE p.agent = m.agent AND p.chat_id = m.chat_id
		AND p.message_id < m.message_id ORDER BY p.message_id DESC LIMIT 1), '') AS previous
FROM messages m JOIN search_chats sc ON sc.agent = m.agent AND sc.chat_id = m.chat_id
WHERE m.message_id BETWEEN 1 AND 2147483647;

-- A new message gets its agent and chat numbers on first sight, then its entry. The
-- guards leave a message unindexed (never refused) when a bound is exceeded.
CREATE TRIGGER messages_search_insert AFTER INSERT ON messages
WHEN new.message_id BETWEEN 1 AND 2147483647
BEGIN
	INSERT OR IGNORE INTO search_agents (agent) VALUES (new.agent);
	INSERT OR IGNORE INTO search_chats (scope, agent, chat_id)
	SELECT next, new.agent, new.chat_id FROM (
		SELECT a.agent_no, coalesce((SELECT max(scope) + 1 FROM search_chats
			WHERE scope BETWEEN a.agent_no << 22 AND ((a.agent_no + 1) << 22) - 1), a.agent_no << 22) AS next
		FROM search_agents a
		WHERE a.agent = new.agent AND a.agent_no < 1024
			AND NOT EXISTS (SELECT 1 FROM search_chats WHERE agent = new.agent AND chat_id = new.chat_id))
	WHERE next < (agent_no + 1) << 22;
	INSERT INTO message_search (rowid, body, context, previous)
	SELECT key, body, context, previous FROM message_search_docs
	WHERE agent = new.agent AND chat_id = new.chat_id AND message_id = new.message_id;
END;

-- An edit replaces the entry; a media description filled in later is indexed too.
CREATE TRIGGER messages_search_edit AFTER UPDATE OF text, media ON messages
WHEN new.message_id BETWEEN 1 AND 2147483647
BEGIN
	DELETE FROM message_search WHERE rowid = (SELECT key FROM message_search_docs
		WHERE agent = new.agent AND chat_id = new.chat_id AND message_id = new.message_id);
	INSERT INTO message_search (rowid, body, context, previous)
	SELECT key, body, context, previous FROM message_search_docs
	WHERE agent = new.agent AND chat_id = new.chat_id AND message_id = new.message_id;
END;

-- Backfill what was stored before this version.
INSERT INTO search_agents (agent) SELECT DISTINCT agent FROM messages ORDER BY agent;
INSERT INTO search_chats (scope, agent, chat_id)
SELECT scope, agent, chat_id FROM (
	SELECT (a.agent_no << 22) + row_number() OVER (PARTITION BY c.agent ORDER BY c.chat_id) - 1 AS scope,
		a.agent_no, c.agent, c.chat_id
	FROM (SELECT DISTINCT agent, chat_id FROM messages) c JOIN search_agents a ON a.agent = c.agent
	WHERE a.agent_no < 1024)
WHERE scope < (agent_no + 1) << 22;
INSERT INTO message_search (rowid, body, context, previous) SELECT key, body, context, previous FROM message_search_docs;
