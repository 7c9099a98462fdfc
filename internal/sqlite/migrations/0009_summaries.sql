-- 0009_summaries: what the model wrote about stretches of a chat. Summaries are derived
-- data: the messages they cover are never deleted, and a newer rolling summary supersedes
-- the previous one by covering everything it covered. first_id and last_id are the message
-- range covered; period_start and period_end (Unix ms) the period (periodic kinds) or the
-- times of the first and last message (rolling).
CREATE TABLE summaries (
	id           INTEGER PRIMARY KEY,
	agent        TEXT    NOT NULL,
	chat_id      INTEGER NOT NULL,
	thread_id    INTEGER NOT NULL,
	kind         TEXT    NOT NULL,
	first_id     INTEGER NOT NULL,
	last_id      INTEGER NOT NULL,
	period_start INTEGER NOT NULL,
	period_end   INTEGER NOT NULL,
	text         TEXT    NOT NULL,
	model        TEXT    NOT NULL,
	created      INTEGER NOT NULL
) STRICT;

-- One rolling summary per covered range end, one periodic summary per period: two
-- processes (or a retry after a crash) that write the same summary store it once. The
-- same indexes serve the latest-of-kind lookups.
CREATE UNIQUE INDEX summaries_rolling ON summaries (agent, chat_id, thread_id, last_id) WHERE kind = 'rolling';
CREATE UNIQUE INDEX summaries_period ON summaries (agent, chat_id, thread_id, kind, period_end) WHERE kind <> 'rolling';

-- summary_flushes records each memory flush (the silent turn that saves facts before a
-- compaction) by the first message of the range compacted, so it runs once.
CREATE TABLE summary_flushes (
	agent     TEXT    NOT NULL,
	chat_id   INTEGER NOT NULL,
	thread_id INTEGER NOT NULL,
	first_id  INTEGER NOT NULL,
	at        INTEGER NOT NULL,
	PRIMARY KEY (agent, chat_id, thread_id, first_id)
) STRICT, WITHOUT ROWID;
