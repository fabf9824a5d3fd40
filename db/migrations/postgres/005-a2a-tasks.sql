-- A2A tasks stored once paid or cancelled, kept until DELIVERY_RETENTION_SECONDS after their last change (see SQLite migration 010).
CREATE TABLE a2a_tasks (
  id         text PRIMARY KEY,
  body       text NOT NULL,
  final      boolean NOT NULL,
  updated_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX a2a_tasks_expiry ON a2a_tasks (expires_at);
