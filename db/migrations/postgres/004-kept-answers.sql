-- Paid answers kept for re-delivery, payment-identifiers and MCP cancel notices (see SQLite migration 009).
ALTER TABLE payment_claims ADD COLUMN payment_id text;
ALTER TABLE payment_claims ADD COLUMN caller_ref text;
ALTER TABLE payment_claims ADD COLUMN cancelled boolean NOT NULL DEFAULT false;
CREATE UNIQUE INDEX payment_claims_payment_id ON payment_claims (payer, payment_id) WHERE payment_id IS NOT NULL;
CREATE INDEX payment_claims_caller_ref ON payment_claims (caller_ref) WHERE caller_ref IS NOT NULL;

CREATE TABLE kept_answers (
  signature    text PRIMARY KEY,
  request_key  text NOT NULL,
  status       integer NOT NULL,
  content_type text NOT NULL,
  body         text NOT NULL,
  receipt      text NOT NULL,
  reached      boolean,
  kept_at      bigint NOT NULL,
  expires_at   bigint NOT NULL
);
CREATE INDEX kept_answers_expiry ON kept_answers (expires_at);

-- A cancel notice is remembered for a while by its call's name: a claim taken after it (the notice
-- reached another instance first) starts cancelled.
CREATE TABLE cancelled_calls (
  caller_ref text PRIMARY KEY,
  expires_at bigint NOT NULL
);
