-- A mint's launch facts, kept so a repeated analysis reads only current balances (see SQLite migration 011).
CREATE TABLE launch_facts (
  network    text NOT NULL,
  mint       text NOT NULL,
  facts      text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (network, mint)
);
