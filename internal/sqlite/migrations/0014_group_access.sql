-- 0014_group_access: groups an agent answers in without a configured list of groups. With
-- groups.allow empty (the default) an agent answers in a group only once it is approved:
-- added by a user it answers in private (added_by, from my_chat_member), activated by an
-- admin (/activation: approved_by), or approved by the operator (approved_by 0). noticed_at
-- is when the owner was told that the group waits, so they are told once. added_by 0 means
-- unknown; NULL times mean "not yet".
CREATE TABLE group_access (
	agent               TEXT    NOT NULL,
	chat_id             INTEGER NOT NULL,
	title               TEXT    NOT NULL,
	added_by            INTEGER NOT NULL,
	added_by_first_name TEXT    NOT NULL,
	added_by_last_name  TEXT    NOT NULL,
	added_by_username   TEXT    NOT NULL,
	added_at            INTEGER,
	approved_at         INTEGER,
	approved_by         INTEGER NOT NULL,
	noticed_at          INTEGER,
	created             INTEGER NOT NULL,
	PRIMARY KEY (agent, chat_id)
) STRICT, WITHOUT ROWID;
