-- Failed x402 settlements by paying wallet (see SQLite migration 014).
CREATE TABLE payer_failures (
  id    bigserial PRIMARY KEY,
  payer text NOT NULL,
  at    bigint NOT NULL
);
CREATE INDEX payer_failures_at ON payer_failures (at);
