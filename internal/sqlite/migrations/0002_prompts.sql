-- 0002_prompts: what each turn's prompt contained, so that an operator can ask why a reply
-- said what it said. One row per turn of an agent; recording a turn again replaces it.
-- composition is the prompt package's JSON as given, byte for byte. Never deleted.
-- No foreign key to turns: a record stands on its own, like a usage row.
CREATE TABLE prompts (
	agent         TEXT    NOT NULL,
	turn_id       INTEGER NOT NULL,
	chat_id       INTEGER NOT NULL,
	model         TEXT    NOT NULL,
	composition   TEXT    NOT NULL,
	input_tokens  INTEGER NOT NULL,
	output_tokens INTEGER NOT NULL,
	cached_tokens INTEGER NOT NULL,
	time          INTEGER NOT NULL,
	PRIMARY KEY (agent, turn_id)
) STRICT;

-- Sent parts by Telegram message id, to find the turn behind a reply. Rowid order within
-- an id is enqueue order, so the newest match needs no sort, with or without a chat.
CREATE INDEX outbox_sent ON outbox (agent, tg_message_id) WHERE tg_message_id IS NOT NULL;
