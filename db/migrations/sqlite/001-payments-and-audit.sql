-- One row per payment proof (transaction signature) that was ever claimed.
-- 'pending' rows reserve the proof for one request until lease_expires_at;
-- 'redeemed' rows are spent forever.
CREATE TABLE payment_claims (
  signature        TEXT PRIMARY KEY,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'redeemed')),
  claim_id         TEXT NOT NULL,
  lease_expires_at INTEGER NOT NULL,   -- unix ms
  service          TEXT NOT NULL,
  payer            TEXT NOT NULL,
  amount           TEXT NOT NULL,      -- base units received by the merchant
  resource         TEXT NOT NULL,
  claimed_at       INTEGER NOT NULL,   -- unix ms
  redeemed_at      INTEGER             -- unix ms
) WITHOUT ROWID;

-- Every verification attempt and how it ended.
CREATE TABLE audit_log (
  id          INTEGER PRIMARY KEY,
  at          INTEGER NOT NULL,        -- unix ms
  request_id  TEXT NOT NULL,
  service     TEXT NOT NULL,
  resource    TEXT NOT NULL,
  payer       TEXT,
  signature   TEXT,
  amount      TEXT,                    -- base units paid, when the transaction was read
  outcome     TEXT NOT NULL,           -- DELIVERED, or the error code the request ended with
  verified    INTEGER NOT NULL,        -- 1 when the payment passed every check and was claimed
  status      INTEGER NOT NULL,        -- HTTP status answered
  latency_ms  REAL NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);

-- Challenges without a proof are only counted, so unpaid traffic cannot grow the database.
CREATE TABLE challenge_counts (
  service TEXT NOT NULL,
  day     TEXT NOT NULL,               -- YYYY-MM-DD, UTC
  count   INTEGER NOT NULL,
  PRIMARY KEY (service, day)
) WITHOUT ROWID;
