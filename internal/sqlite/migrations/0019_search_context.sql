-- 0019_search_context: what a message answers is read by what the message looks like.
-- The previous column held the whole message before each message (and the text it replies
-- to): right for a short "yes, in May!", whose words say little alone, but a long message
-- says what it is about by itself, and a long message before it (an assistant's answer,
-- a pasted text) only added unrelated words, both as matches and as length: BM25 weighs a
-- match by the whole entry's length, so a long previous message also buried the words
-- of the one after it.
--
-- Now mynah_context (internal/sqlite/context.go) writes the previous column: the end of
-- the conversation before the message (the text it replies to, then the two messages
-- before it, nearest first, those of the last hour only) up to 100 words together with
-- the message itself. A message of 100 words or more has no previous text; a short one
-- borrows the last words said before it.
--
-- The message index is rebuilt, as 0015 rebuilt it: emptied here, and the indexer takes
-- every stored message again in its batches, with progress. Nothing stored is touched.
DROP VIEW message_search_docs;
CREATE VIEW message_search_docs AS
SELECT (sc.scope << 31) | m.message_id AS key,
	m.agent AS agent, m.chat_id AS chat_id, m.message_id AS message_id,
	mynah_stem(m.text || coalesce((SELECT ' ' || group_concat(json_extract(value, '$.description'), ' ')
		FROM json_each(m.media) WHERE json_extract(value, '$.description') <> ''), '')) AS body,
	mynah_stem(trim(m.sender_first_name || ' ' || m.sender_last_name || ' ' || m.sender_username) || ' ' ||
	CASE strftime('%m', m.time / 1000, 'unixepoch')
		WHEN '01' THEN 'January' WHEN '02' THEN 'February' WHEN '03' THEN 'March'
		WHEN '04' THEN 'April' WHEN '05' THEN 'May' WHEN '06' THEN 'June'
		WHEN '07' THEN 'July' WHEN '08' THEN 'August' WHEN '09' THEN 'September'
		WHEN '10' THEN 'October' WHEN '11' THEN 'November' ELSE 'December' END || ' ' ||
	strftime('%Y', m.time / 1000, 'unixepoch')) AS context,
	mynah_stem(mynah_context(m.text || coalesce((SELECT ' ' || group_concat(json_extract(value, '$.description'), ' ')
		FROM json_each(m.media) WHERE json_extract(value, '$.description') <> ''), ''),
	m.time, json_extract(m.reply_to, '$.text'),
	(SELECT json_group_array(json_array(p.time, p.text)) FROM (SELECT p.time, p.text FROM messages p
		WHERE p.agent = m.agent AND p.chat_id = m.chat_id AND p.message_id < m.message_id
		ORDER BY p.message_id DESC LIMIT 2) p))) AS previous
FROM messages m JOIN search_chats sc ON sc.agent = m.agent AND sc.chat_id = m.chat_id
WHERE m.message_id BETWEEN 1 AND 2147483647;

INSERT INTO message_search (message_search) VALUES ('delete-all');
UPDATE search_progress SET last_rowid = 0 WHERE id = 1;
