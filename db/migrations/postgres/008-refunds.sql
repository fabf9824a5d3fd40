-- Refunds of payments never delivered (see SQLite migration 013): a refunded claim is a tombstone
-- no claim takes over and no redeem accepts; one refund row per payment.
ALTER TABLE payment_claims DROP CONSTRAINT payment_claims_status_check;
ALTER TABLE payment_claims ADD CONSTRAINT payment_claims_status_check CHECK (status IN ('pending', 'sent', 'redeemed', 'refunded'));

CREATE TABLE refunds (
  payment           text PRIMARY KEY,
  idempotency_key   text NOT NULL,
  payer             text NOT NULL,
  destination       text NOT NULL,
  amount            numeric NOT NULL CHECK (amount > 0),
  reason            text NOT NULL,
  status            text NOT NULL CHECK (status IN ('reserved', 'sent', 'executed', 'failed')),
  holder            text NOT NULL,
  lease_expires_at  bigint NOT NULL,
  refund_signature  text,
  wire              text,
  last_valid_height numeric,
  requested_at      bigint NOT NULL,
  decided_at        bigint
);
CREATE INDEX refunds_unsettled ON refunds (lease_expires_at) WHERE status IN ('reserved', 'sent', 'failed');
