-- Secrets the service makes at first start and every process sharing this file must agree on
-- (the HMAC key binding MPP challenges when MPP_SECRET_KEY is unset). The first write wins.
CREATE TABLE service_secrets (
  name       TEXT PRIMARY KEY,
  secret     TEXT NOT NULL,
  created_at INTEGER NOT NULL     -- unix ms
);
