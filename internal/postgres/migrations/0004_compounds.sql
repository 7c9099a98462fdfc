-- 0004_compounds: "gym" finds "I joined PureGym", as SQLite's migration 0020 makes it
-- there: the index tokens of a text (stem.Text) now end with the parts of its Latin
-- compound words (PureGym: Pure Gym, AirPods: Air Pods), which were one token each.
--
-- The entries are rebuilt as 0003 rebuilt them: the messages' are emptied here, and Open
-- indexes every message without an entry and writes every note chunk's entry anew from
-- its text while search_rebuild holds a row (see DB.finishRebuild). Nothing stored is
-- touched; only the derived entries are.
DELETE FROM message_search;
UPDATE search_chats SET docs = 0, tokens = 0;
INSERT INTO search_rebuild VALUES (true) ON CONFLICT DO NOTHING;
