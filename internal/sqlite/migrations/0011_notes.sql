-- 0011_notes: the notes index. An agent's markdown notes (curated ones from its config
-- dir, episodic ones it wrote in the data dir) are chunked by the memory package and
-- indexed here for keyword search. Everything here is derived from the files: a file that
-- changes has its chunks replaced, one removed has them deleted, and the tables can be
-- emptied at any time to rebuild them. Messages are never touched.
CREATE TABLE note_files (
	agent TEXT    NOT NULL,
	kind  TEXT    NOT NULL CHECK (kind IN ('curated', 'episodic')),
	path  TEXT    NOT NULL CHECK (path <> ''),
	hash  TEXT    NOT NULL,
	size  INTEGER NOT NULL,
	mtime INTEGER NOT NULL, -- unix nanoseconds
	PRIMARY KEY (agent, kind, path)
) STRICT, WITHOUT ROWID;

-- A chunk's id is agent_no << 40 | n (agent_no from search_agents): an agent's chunks are
-- one rowid range of note_search, which FTS5 seeks straight to, as for messages.
CREATE TABLE note_chunks (
	id         INTEGER PRIMARY KEY,
	agent      TEXT    NOT NULL,
	kind       TEXT    NOT NULL,
	path       TEXT    NOT NULL,
	start_line INTEGER NOT NULL,
	end_line   INTEGER NOT NULL,
	text       TEXT    NOT NULL,
	hash       TEXT    NOT NULL,
	FOREIGN KEY (agent, kind, path) REFERENCES note_files (agent, kind, path) ON DELETE CASCADE
) STRICT;

CREATE INDEX note_chunks_file ON note_chunks (agent, kind, path);

CREATE VIRTUAL TABLE note_search USING fts5(
	text,
	content = '', contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

-- The triggers keep the index in step with the chunks, whichever statement changes them
-- (including the cascade from note_files).
CREATE TRIGGER note_chunks_insert AFTER INSERT ON note_chunks
BEGIN
	INSERT INTO note_search (rowid, text) VALUES (new.id, new.text);
END;

CREATE TRIGGER note_chunks_delete AFTER DELETE ON note_chunks
BEGIN
	DELETE FROM note_search WHERE rowid = old.id;
END;
