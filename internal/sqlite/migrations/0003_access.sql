-- 0003_access: who may talk to an agent. pairings holds the one-time codes strangers get in
-- private chats and, once approved_at is set, the approval itself: a user is approved for an
-- agent when one of their codes was approved. Codes are unique across agents and never
-- reused, so a code alone names its agent. chat_modes holds what admins set at runtime
-- (/stop, /activation) per chat; a chat without a row uses the configuration.
CREATE TABLE pairings (
	code        TEXT    PRIMARY KEY,
	agent       TEXT    NOT NULL,
	user_id     INTEGER NOT NULL,
	first_name  TEXT    NOT NULL,
	last_name   TEXT    NOT NULL,
	username    TEXT    NOT NULL,
	created     INTEGER NOT NULL,
	expires     INTEGER NOT NULL,
	approved_at INTEGER
) STRICT;

-- Pending codes of an agent, to count them and to find a user's.
CREATE INDEX pairings_pending ON pairings (agent, user_id, expires) WHERE approved_at IS NULL;
-- Approved users of an agent: the lookup behind every private message of a paired user.
CREATE INDEX pairings_approved ON pairings (agent, user_id) WHERE approved_at IS NOT NULL;

CREATE TABLE chat_modes (
	agent      TEXT    NOT NULL,
	chat_id    INTEGER NOT NULL,
	trigger    TEXT    NOT NULL,
	stopped    INTEGER NOT NULL,
	updated_at INTEGER NOT NULL,
	PRIMARY KEY (agent, chat_id)
) STRICT, WITHOUT ROWID;
