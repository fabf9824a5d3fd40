-- One x402 settlement in flight per source token account (see SQLite migration 008).
CREATE TABLE source_holds (
  source     text PRIMARY KEY,
  holder     text NOT NULL,
  expires_at bigint NOT NULL
);
