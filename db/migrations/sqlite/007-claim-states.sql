-- Claims follow the settlement state machine. 'sent': a transaction for this claim may be on its
-- way to the chain (x402 settlement called sendTransaction), so only the chain's verdict may free
-- it; a holder giving up only ends its lease. `flow` is the door family that claimed the
-- signature: a signature claimed by x402 is never delivered through the proof headers.
CREATE TABLE payment_claims_v2 (
  signature        TEXT PRIMARY KEY,
  status           TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'redeemed')),
  flow             TEXT NOT NULL CHECK (flow IN ('proof', 'x402')),
  claim_id         TEXT NOT NULL,
  lease_expires_at INTEGER NOT NULL,   -- unix ms
  service          TEXT NOT NULL,
  payer            TEXT NOT NULL,
  amount           TEXT NOT NULL,      -- base units received by the merchant
  resource         TEXT NOT NULL,
  claimed_at       INTEGER NOT NULL,   -- unix ms
  redeemed_at      INTEGER             -- unix ms
) WITHOUT ROWID;

INSERT INTO payment_claims_v2 (signature, status, flow, claim_id, lease_expires_at, service, payer, amount, resource, claimed_at, redeemed_at)
SELECT c.signature, c.status,
  CASE WHEN EXISTS (SELECT 1 FROM audit_log a WHERE a.signature = c.signature AND a.flow <> 'proof') THEN 'x402' ELSE 'proof' END,
  c.claim_id, c.lease_expires_at, c.service, c.payer, c.amount, c.resource, c.claimed_at, c.redeemed_at
FROM payment_claims c;
DROP TABLE payment_claims;
ALTER TABLE payment_claims_v2 RENAME TO payment_claims;

-- A payment has one audit row, replaced as its outcome changes: found by its signature.
CREATE INDEX audit_log_signature ON audit_log (signature) WHERE signature IS NOT NULL;
