-- Refunds of payments never delivered (docs/refunds.md). A refund and a redemption exclude each
-- other through the claim row: a refund turns the payment's claim into 'refunded' (inserting one
-- when the payment was never claimed, or its claim was given back), which no claim takes over and
-- no redeem accepts; a redeemed claim is never turned. SQLite cannot widen a CHECK in place: the
-- table is rebuilt as migration 007 did.
CREATE TABLE payment_claims_v3 (
  signature        TEXT PRIMARY KEY,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'redeemed', 'refunded')),
  flow             TEXT NOT NULL CHECK (flow IN ('proof', 'x402')),
  claim_id         TEXT NOT NULL,
  lease_expires_at INTEGER NOT NULL,   -- unix ms
  service          TEXT NOT NULL,
  payer            TEXT NOT NULL,
  amount           TEXT NOT NULL,      -- base units received by the merchant
  resource         TEXT NOT NULL,
  claimed_at       INTEGER NOT NULL,   -- unix ms
  redeemed_at      INTEGER,            -- unix ms
  payment_id       TEXT,
  caller_ref       TEXT,
  cancelled        INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
INSERT INTO payment_claims_v3 (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at, redeemed_at, payment_id, caller_ref, cancelled)
SELECT signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at, redeemed_at, payment_id, caller_ref, cancelled
FROM payment_claims;
DROP TABLE payment_claims;
ALTER TABLE payment_claims_v3 RENAME TO payment_claims;
CREATE UNIQUE INDEX payment_claims_payment_id ON payment_claims (payer, payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX payment_claims_caller_ref ON payment_claims (caller_ref) WHERE caller_ref IS NOT NULL;

-- One refund per payment, whatever the idempotency key or instance. 'reserved': nothing sent yet,
-- held by `holder` until `lease_expires_at`; 'sent': `refund_signature` (the signed bytes in
-- `wire`) may be on its way, only the chain decides; 'executed' / 'failed': the chain's verdict
-- on that transaction (a failed one moved nothing and is reserved again for a new one).
CREATE TABLE refunds (
  payment           TEXT PRIMARY KEY,  -- the payment's transaction signature
  idempotency_key   TEXT NOT NULL,
  payer             TEXT NOT NULL,
  destination       TEXT NOT NULL,     -- the paying token account
  amount            TEXT NOT NULL,     -- base units
  reason            TEXT NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('reserved', 'sent', 'executed', 'failed')),
  holder            TEXT NOT NULL,
  lease_expires_at  INTEGER NOT NULL,  -- unix ms
  refund_signature  TEXT,
  wire              TEXT,              -- base64 signed transaction
  last_valid_height TEXT,              -- the blockhash's last valid block height
  requested_at      INTEGER NOT NULL,  -- unix ms
  decided_at        INTEGER            -- unix ms
) WITHOUT ROWID;
CREATE INDEX refunds_unsettled ON refunds (lease_expires_at) WHERE status IN ('reserved', 'sent', 'failed');
