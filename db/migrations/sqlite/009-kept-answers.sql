-- A paid answer is kept for re-delivery (DELIVERY_RETENTION_SECONDS): when the money moved and
-- the answer did not reach the buyer, the same payment fetches it again, nothing charged twice.
-- `payment_id` is the buyer's x402 payment-identifier: one claim per payer and id, so a second
-- payment under the same id is answered from the first, never charged. `caller_ref` names the MCP
-- call a claim serves (session and JSON-RPC id, hashed): a cancel notice for it sets `cancelled`,
-- after which nothing is sent and its kept answer counts as not reached.
ALTER TABLE payment_claims ADD COLUMN payment_id TEXT;
ALTER TABLE payment_claims ADD COLUMN caller_ref TEXT;
ALTER TABLE payment_claims ADD COLUMN cancelled INTEGER NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX payment_claims_payment_id ON payment_claims (payer, payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX payment_claims_caller_ref ON payment_claims (caller_ref) WHERE caller_ref IS NOT NULL;

CREATE TABLE kept_answers (
  signature    TEXT PRIMARY KEY,    -- the payment (claim) it was delivered for
  request_key  TEXT NOT NULL,       -- method, resource and arguments, hashed
  status       INTEGER NOT NULL,
  content_type TEXT NOT NULL,
  body         TEXT NOT NULL,
  receipt      TEXT NOT NULL,       -- JSON
  reached      INTEGER,             -- 1: reached the buyer, 0: lost, NULL: not known yet (being written, or its holder died)
  kept_at      INTEGER NOT NULL,    -- unix ms
  expires_at   INTEGER NOT NULL     -- unix ms
);
CREATE INDEX kept_answers_expiry ON kept_answers (expires_at);

-- A cancel notice is remembered for a while by its call's name: a claim taken after it (the notice
-- reached another instance first) starts cancelled.
CREATE TABLE cancelled_calls (
  caller_ref TEXT PRIMARY KEY,
  expires_at INTEGER NOT NULL
);
