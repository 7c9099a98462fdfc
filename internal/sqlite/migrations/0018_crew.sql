-- 0018_crew: crews, the cycles they run in each chat, and the sessions of command-line
-- agents used as models.
--
-- crew_states is one row per crew and chat: the cycle under way (or the last one), whose
-- turn it is and what each member did this round. version makes every change a
-- compare-and-set, so concurrent lanes never both advance a cycle. spoke, passed and
-- failed are JSON arrays of agent names.
CREATE TABLE crew_states (
	crew      TEXT    NOT NULL,
	chat_id   INTEGER NOT NULL,
	thread_id INTEGER NOT NULL,
	version   INTEGER NOT NULL,
	cycle     INTEGER NOT NULL,
	active    INTEGER NOT NULL,
	round     INTEGER NOT NULL,
	next      INTEGER NOT NULL,
	closing   INTEGER NOT NULL,
	turn_id   INTEGER NOT NULL,
	outcome   TEXT    NOT NULL,
	target    INTEGER NOT NULL,
	asked     INTEGER NOT NULL,
	replied   INTEGER NOT NULL,
	spoke     TEXT    NOT NULL,
	passed    TEXT    NOT NULL,
	failed    TEXT    NOT NULL,
	ended     TEXT    NOT NULL,
	command   INTEGER NOT NULL,
	session   INTEGER NOT NULL,
	updated   INTEGER NOT NULL,
	PRIMARY KEY (crew, chat_id)
) STRICT, WITHOUT ROWID;

-- The cycles under way, which a restart resumes.
CREATE INDEX crew_states_active ON crew_states (crew, chat_id) WHERE active = 1;

-- crew_members lists each crew's members in a chat, in speaking order, with what the
-- crew keeps per member. Outbox.MarkSent reads it (crew_members_agent) to record a
-- member's message in the other members' views.
CREATE TABLE crew_members (
	crew      TEXT    NOT NULL,
	chat_id   INTEGER NOT NULL,
	agent     TEXT    NOT NULL,
	position  INTEGER NOT NULL,
	last_seen INTEGER NOT NULL,
	turns     INTEGER NOT NULL,
	PRIMARY KEY (crew, chat_id, agent),
	FOREIGN KEY (crew, chat_id) REFERENCES crew_states (crew, chat_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX crew_members_agent ON crew_members (agent, chat_id);

-- model_sessions holds the session of a command-line agent per conversation (key: agent,
-- chat, topic and prompt session), so a restart resumes it instead of sending the whole
-- history again.
CREATE TABLE model_sessions (
	key        TEXT    NOT NULL PRIMARY KEY,
	session_id TEXT    NOT NULL,
	seen       INTEGER NOT NULL,
	turns      INTEGER NOT NULL,
	started    INTEGER NOT NULL,
	used       INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
