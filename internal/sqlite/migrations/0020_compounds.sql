-- 0020_compounds: "gym" finds "I joined PureGym". mynah_stem (internal/stem) now follows
-- the text with the parts of its Latin compound words (PureGym: Pure Gym, AirPods: Air
-- Pods), which the tokenizer took as one word each.
--
-- The message index is rebuilt, as 0015 rebuilt it: emptied here, and the indexer takes
-- every stored message again in its batches, with progress. Notes are few: their index is
-- rebuilt here at once. Nothing stored is touched; only the derived indexes are.
INSERT INTO message_search (message_search) VALUES ('delete-all');
UPDATE search_progress SET last_rowid = 0 WHERE id = 1;
INSERT INTO note_search (note_search) VALUES ('delete-all');
INSERT INTO note_search (rowid, text) SELECT id, mynah_stem(text) FROM note_chunks;
