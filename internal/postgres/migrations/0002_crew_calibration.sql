-- 0002_crew_calibration: the tables of SQLite's migrations 0017 and 0018, in the same
-- shape, so that `mynah store copy` moves them column for column: what each agent's
-- models taught the token estimator, crews and the cycles they run in each chat, and the
-- sessions of command-line agents used as models.

-- token_calibration holds the state of internal/tokens.Calibration per agent and model
-- (provider/model as configured), as JSON text. A row is small and rewritten at most
-- once a minute; deleting one only makes counts start from the plain estimate again.
CREATE TABLE token_calibration (
	agent   text   NOT NULL,
	model   text   NOT NULL,
	state   text   NOT NULL,
	updated bigint NOT NULL,
	PRIMARY KEY (agent, model)
);

-- crew_states is one row per crew and chat: the cycle under way (or the last one), whose
-- turn it is and what each member did this round. version makes every change a
-- compare-and-set, so concurrent lanes (of this or another instance) never both advance
-- a cycle. spoke, passed and failed are JSON arrays of agent names, as text.
CREATE TABLE crew_states (
	crew      text    NOT NULL,
	chat_id   bigint  NOT NULL,
	thread_id bigint  NOT NULL,
	version   bigint  NOT NULL,
	cycle     bigint  NOT NULL,
	active    boolean NOT NULL,
	round     integer NOT NULL,
	next      integer NOT NULL,
	closing   boolean NOT NULL,
	turn_id   bigint  NOT NULL,
	outcome   text    NOT NULL,
	target    bigint  NOT NULL,
	asked     bigint  NOT NULL,
	replied   bigint  NOT NULL,
	spoke     text    NOT NULL,
	passed    text    NOT NULL,
	failed    text    NOT NULL,
	ended     text    NOT NULL,
	command   bigint  NOT NULL,
	session   bigint  NOT NULL,
	updated   bigint  NOT NULL,
	PRIMARY KEY (crew, chat_id)
);

-- The cycles under way, which a restart resumes.
CREATE INDEX crew_states_active ON crew_states (crew, chat_id) WHERE active;

-- crew_members lists each crew's members in a chat, in speaking order, with what the
-- crew keeps per member. Outbox.MarkSent reads it (crew_members_agent) to record a
-- member's message in the other members' views.
CREATE TABLE crew_members (
	crew      text    NOT NULL,
	chat_id   bigint  NOT NULL,
	agent     text    NOT NULL,
	position  integer NOT NULL,
	last_seen bigint  NOT NULL,
	turns     integer NOT NULL,
	PRIMARY KEY (crew, chat_id, agent),
	FOREIGN KEY (crew, chat_id) REFERENCES crew_states (crew, chat_id)
);

CREATE INDEX crew_members_agent ON crew_members (agent, chat_id);

-- model_sessions holds the session of a command-line agent per conversation (key: agent,
-- chat, topic and prompt session), so a restart resumes it instead of sending the whole
-- history again.
CREATE TABLE model_sessions (
	key        text    NOT NULL PRIMARY KEY,
	session_id text    NOT NULL,
	seen       bigint  NOT NULL,
	turns      integer NOT NULL,
	started    bigint  NOT NULL,
	used       bigint  NOT NULL
);
