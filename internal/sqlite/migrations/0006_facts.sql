-- 0006_facts: what each agent remembers about people, per user and global across chats.
-- Facts are derived data, the one thing mynah deletes: when their owner asks the agent to
-- forget them, or when the oldest make room under the per-user cap. norm is the text as
-- mynah.NormalizeFactText folds it, the key that keeps a user's facts free of duplicates.
-- chat_id and message_id say where a fact was learned (0 when an operator added it).
CREATE TABLE facts (
	id         INTEGER PRIMARY KEY,
	agent      TEXT    NOT NULL,
	user_id    INTEGER NOT NULL,
	text       TEXT    NOT NULL,
	norm       TEXT    NOT NULL,
	chat_id    INTEGER NOT NULL,
	message_id INTEGER NOT NULL,
	created    INTEGER NOT NULL
) STRICT;

-- A user's facts in order (list, count, evict the oldest) and the dedupe key.
CREATE INDEX facts_user ON facts (agent, user_id, id);
CREATE UNIQUE INDEX facts_norm ON facts (agent, user_id, norm);

-- fact_removals makes a removal requested by one Telegram update happen once: an update
-- delivered again after a crash must not delete the fact that moved into the position the
-- first delivery emptied. It keeps ids and counts only, never a forgotten fact's text.
CREATE TABLE fact_removals (
	agent   TEXT    NOT NULL,
	key     TEXT    NOT NULL,
	user_id INTEGER NOT NULL,
	fact_id INTEGER NOT NULL, -- 0 for a removal of all
	count   INTEGER NOT NULL,
	at      INTEGER NOT NULL,
	PRIMARY KEY (agent, key)
) STRICT, WITHOUT ROWID;
