-- A mint's launch (creation, early receipts) as the analysis read it: facts that never change, kept
-- so a repeated analysis of the mint reads only current balances (lib/token-analysis/launch/).
CREATE TABLE launch_facts (
  network    TEXT NOT NULL,
  mint       TEXT NOT NULL,
  facts      TEXT NOT NULL,       -- JSON, amounts as strings
  created_at INTEGER NOT NULL,    -- unix ms of the first write
  PRIMARY KEY (network, mint)
);
