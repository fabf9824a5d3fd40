-- Failed x402 settlements by paying wallet: the fee payer's budget per wallet survives a restart
-- and is shared by every process on this file (lib/x402/payer-failures.ts). Pruned past the window.
CREATE TABLE payer_failures (
  id    INTEGER PRIMARY KEY,
  payer TEXT NOT NULL,
  at    INTEGER NOT NULL     -- unix ms
);
CREATE INDEX payer_failures_at ON payer_failures (at);
