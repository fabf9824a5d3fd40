-- A mint's launch (creation, early receipts) as the analysis read it: facts that never change, kept
-- so a repeated analysis of the mint reads only current balances (lib/token-analysis/launch/).
CREATE TABLE launch_facts (
  network    TEXT NOT NULL,
  mint       TEXT NOT NULL,
  facts      TEXT NOT NULL,       -- JSON, amounts as strings
  created_at INTEGER NOT NULL,    -- unix ms of the first write
  PRIMARY KEY (network, mint)
);

-- Who first sent SOL to a wallet among the largest holders, and in which transaction (holder clusters).
CREATE TABLE wallet_funders (
  network   TEXT NOT NULL,
  wallet    TEXT NOT NULL,
  funder    TEXT NOT NULL,
  signature TEXT NOT NULL,
  PRIMARY KEY (network, wallet)
);
