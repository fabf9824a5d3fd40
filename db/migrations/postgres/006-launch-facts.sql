-- A mint's launch facts, kept so a repeated analysis reads only current balances (see SQLite migration 011).
CREATE TABLE launch_facts (
  network    text NOT NULL,
  mint       text NOT NULL,
  facts      text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (network, mint)
);
CREATE TABLE wallet_funders (
  network   text NOT NULL,
  wallet    text NOT NULL,
  funder    text NOT NULL,
  signature text NOT NULL,
  PRIMARY KEY (network, wallet)
);
