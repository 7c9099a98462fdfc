-- 0015_stemming: Russian and Ukrainian words are found in any of their forms. FTS5's
-- porter tokenizer stems English only, so «машина» did not find «машину». The function
-- mynah_stem (registered by this package; see internal/stem) now rewrites what is indexed:
-- each Cyrillic word becomes its folded stem (Snowball Russian, or the package's Ukrainian
-- stemmer, by the word's letters), everything else stays as written for the tokenizer,
-- which still stems English as before. Queries are stemmed the same way in Go.
--
-- The message index is rebuilt: emptied here, and search_progress set back to the start,
-- so the indexer takes every stored message again in its batches, with progress, as it
-- does new ones (IndexPending). Nothing stored is touched; only the derived index is.
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
	mynah_stem(coalesce(json_extract(m.reply_to, '$.text') || ' ', '') ||
	coalesce((SELECT p.text FROM messages p WHERE p.agent = m.agent AND p.chat_id = m.chat_id
		AND p.message_id < m.message_id ORDER BY p.message_id DESC LIMIT 1), '')) AS previous
FROM messages m JOIN search_chats sc ON sc.agent = m.agent AND sc.chat_id = m.chat_id
WHERE m.message_id BETWEEN 1 AND 2147483647;

INSERT INTO message_search (message_search) VALUES ('delete-all');
UPDATE search_progress SET last_rowid = 0 WHERE id = 1;

-- Notes are few: their index is rebuilt here at once.
DROP TRIGGER note_chunks_insert;
CREATE TRIGGER note_chunks_insert AFTER INSERT ON note_chunks
BEGIN
	INSERT INTO note_search (rowid, text) VALUES (new.id, mynah_stem(new.text));
END;
INSERT INTO note_search (note_search) VALUES ('delete-all');
INSERT INTO note_search (rowid, text) SELECT id, mynah_stem(text) FROM note_chunks;
