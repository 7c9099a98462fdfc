-- 0013_scopes: where facts and notes may be shown, so that what a person says in private
-- stays out of groups and a note written in one chat is not read in another.
--
-- A fact's scope: 'private' (only in its owner's private chat), 'chat' (also in chat_id,
-- the group it was learned in) or 'shared' (in every chat of its owner). Facts stored
-- before this migration become private, wherever they were learned: nobody chose to share
-- them.
ALTER TABLE facts ADD COLUMN scope TEXT NOT NULL DEFAULT 'private'
	CHECK (scope IN ('private', 'chat', 'shared'));

-- A note's scope is derived from its path by the memory package: 'global', 'chat'
-- (chat_id), 'user' (user_id, shown in that user's private chat) or 'unscoped' (shown in
-- no chat). Notes indexed before this migration are unscoped until the next sync of
-- their folder records their scope (it compares the scope, not only size and time).
ALTER TABLE note_files ADD COLUMN scope TEXT NOT NULL DEFAULT 'unscoped'
	CHECK (scope IN ('global', 'chat', 'user', 'unscoped'));
ALTER TABLE note_files ADD COLUMN chat_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE note_files ADD COLUMN user_id INTEGER NOT NULL DEFAULT 0;
