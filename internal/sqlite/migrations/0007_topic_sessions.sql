-- 0007_topic_sessions: each forum topic has its own session, so /new in one topic starts a
-- new conversation there only. Rows written before this migration were per chat; they
-- become the sessions of thread 0 (a chat without topics, or a forum's General topic).
ALTER TABLE sessions ADD COLUMN thread_id INTEGER NOT NULL DEFAULT 0;

-- The current session of a topic is its row with the highest id.
DROP INDEX sessions_chat;
CREATE INDEX sessions_chat ON sessions (agent, chat_id, thread_id, id);
