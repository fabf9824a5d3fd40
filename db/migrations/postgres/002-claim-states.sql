-- Claims follow the settlement state machine (see SQLite migration 007): 'sent' means a
-- transaction may be on its way and only the chain frees the claim; `flow` is the door family
-- ('proof' or 'x402') that claimed the signature.
ALTER TABLE payment_claims DROP CONSTRAINT payment_claims_status_check;
ALTER TABLE payment_claims ADD CONSTRAINT payment_claims_status_check CHECK (status IN ('pending', 'sent', 'redeemed'));
ALTER TABLE payment_claims ADD COLUMN flow text NOT NULL DEFAULT 'proof' CHECK (flow IN ('proof', 'x402'));
UPDATE payment_claims c SET flow = 'x402'
WHERE EXISTS (SELECT 1 FROM audit_log a WHERE a.signature = c.signature AND a.flow <> 'proof');
ALTER TABLE payment_claims ALTER COLUMN flow DROP DEFAULT;

-- A payment has one audit row, replaced as its outcome changes: found by its signature.
CREATE INDEX audit_log_signature ON audit_log (signature) WHERE signature IS NOT NULL;
