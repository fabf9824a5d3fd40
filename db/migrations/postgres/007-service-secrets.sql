-- Secrets the service makes at first start and every instance must agree on (see SQLite migration 012).
CREATE TABLE service_secrets (
  name       text PRIMARY KEY,
  secret     text NOT NULL,
  created_at bigint NOT NULL
);
