-- 0012_vectors: embeddings for hybrid search. A text is embedded once per model: vectors
-- are keyed by (model, sha256 of the text), and vector_items maps an agent's item — a
-- message (kind 'message', chat, message id) or a note chunk (kind 'note', 0, chunk id) —
-- to its vector. data is the vector as float32 little-endian.
CREATE TABLE vectors (
	id    INTEGER PRIMARY KEY,
	model TEXT    NOT NULL,
	hash  BLOB    NOT NULL,
	data  BLOB    NOT NULL,
	UNIQUE (model, hash)
) STRICT;

-- seq grows with every save, so a cache of a scope loads only what is new.
CREATE TABLE vector_items (
	seq       INTEGER PRIMARY KEY,
	agent     TEXT    NOT NULL,
	model     TEXT    NOT NULL,
	kind      TEXT    NOT NULL,
	chat_id   INTEGER NOT NULL,
	item_id   INTEGER NOT NULL,
	time      INTEGER NOT NULL,
	vector_id INTEGER NOT NULL REFERENCES vectors (id),
	UNIQUE (agent, model, kind, chat_id, item_id)
) STRICT;

CREATE INDEX vector_items_chat ON vector_items (agent, model, kind, chat_id, seq);
CREATE INDEX vector_items_agent ON vector_items (agent, model, kind, seq);

-- How far through messages (by rowid: nothing is deleted from messages, so rowids only
-- grow) each agent's messages have been embedded with each model.
CREATE TABLE vector_progress (
	agent      TEXT    NOT NULL,
	model      TEXT    NOT NULL,
	last_rowid INTEGER NOT NULL,
	PRIMARY KEY (agent, model)
) STRICT;
