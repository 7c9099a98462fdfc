-- 0003_search_context: the previous part of a message's index entry (what it answers) is
-- written as the SQLite store writes its previous column (mynah.PreviousContext): the
-- text it replies to, then the two messages before it, nearest first, those of the last
-- hour only, up to 100 words together with the message itself; a message of 100 words
-- or more has none. Before, it was the whole message before it, however long and however
-- long ago: a long message's words added unrelated matches, and length, to the short one
-- after it, and PostgreSQL ranked LoCoMo 0.02-0.03 below SQLite.
--
-- The entries are rebuilt: emptied here, and Open indexes every message without an entry
-- while search_rebuild holds a row (see DB.finishRebuild), then empties it. Nothing
-- stored is touched.
DELETE FROM message_search;
UPDATE search_chats SET docs = 0, tokens = 0;
CREATE TABLE search_rebuild (pending boolean PRIMARY KEY);
INSERT INTO search_rebuild VALUES (true);
