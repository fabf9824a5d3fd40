-- A2A tasks (lib/a2a/): stored once a payment for them was accepted (or they were cancelled), so a
-- task created on one instance can be paid on another and a completed task's artifact read again
-- with GetTask until DELIVERY_RETENTION_SECONDS after its last change. Tasks awaiting payment are
-- never stored: their id carries what they sell.
CREATE TABLE a2a_tasks (
  id         TEXT PRIMARY KEY,
  body       TEXT NOT NULL,       -- the task as A2A JSON
  final      INTEGER NOT NULL,    -- 1: ended (completed, failed, cancelled, rejected), never written again
  updated_at INTEGER NOT NULL,    -- unix ms
  expires_at INTEGER NOT NULL     -- unix ms
);
CREATE INDEX a2a_tasks_expiry ON a2a_tasks (expires_at);
