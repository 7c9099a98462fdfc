-- A turn may wait a moment before it runs (the rest of a long paste Telegram split, the
-- other photos of an album). Unix ms; 0 = run at once.
ALTER TABLE turns ADD COLUMN not_before INTEGER NOT NULL DEFAULT 0;
