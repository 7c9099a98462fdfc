-- 0008_tasks: a turn's answer is a plan of tasks, not only messages. The outbox keeps
-- holding them (a task is a "part" of the plan), in order, each with its kind, the
-- kind's fields as JSON, the keys of the parts it depends on and its failed attempts.
-- Parts that send nothing (reactions, waits, schedules) are marked done through sent_at.
ALTER TABLE outbox ADD COLUMN kind TEXT NOT NULL DEFAULT 'send';
ALTER TABLE outbox ADD COLUMN task TEXT; -- JSON taskJSON, NULL for a plain send
ALTER TABLE outbox ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;

-- Static turns may carry an inline keyboard, edit a message the agent sent, or wait for
-- a time the agent scheduled (a reminder): due, Unix ms, 0 = now.
ALTER TABLE turns ADD COLUMN buttons TEXT; -- JSON [][]buttonJSON, NULL when none
ALTER TABLE turns ADD COLUMN edit_id INTEGER NOT NULL DEFAULT 0;
ALTER TABLE turns ADD COLUMN due INTEGER NOT NULL DEFAULT 0;
-- The message that showed the answer while it was written (streaming in groups), so a
-- retried turn edits it rather than posting a second one.
ALTER TABLE turns ADD COLUMN preview_id INTEGER NOT NULL DEFAULT 0;

-- Scheduled turns: when the next one falls due.
CREATE INDEX turns_due ON turns (agent, due) WHERE done_at IS NULL AND due > 0;
