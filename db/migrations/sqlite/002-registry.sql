-- Agent registrations read from the chain: one row per registering transaction, per registry
-- address and network (one database file may have served several).
CREATE TABLE registry_agents (
  network          TEXT NOT NULL,
  registry_address TEXT NOT NULL,
  signature        TEXT NOT NULL,
  name             TEXT NOT NULL,
  manifest_url     TEXT NOT NULL,
  wallet           TEXT NOT NULL,      -- fee payer of the transaction
  block_time       INTEGER,            -- unix seconds; NULL when the cluster recorded none
  slot             INTEGER NOT NULL,
  -- Chain order inside a slot: the listing position (0 = newest) within the read that found it.
  -- A later read only covers newer transactions, so (slot DESC, scan_run DESC, scan_position) is newest first.
  scan_run         INTEGER NOT NULL,
  scan_position    INTEGER NOT NULL,
  PRIMARY KEY (network, registry_address, signature)
) WITHOUT ROWID;

CREATE INDEX registry_agents_newest ON registry_agents (network, registry_address, slot DESC, scan_run DESC, scan_position);
CREATE INDEX registry_agents_wallet ON registry_agents (network, registry_address, wallet);
CREATE INDEX registry_agents_name ON registry_agents (network, registry_address, name COLLATE NOCASE);

-- How far the chain has been read, per registry address and network.
CREATE TABLE registry_scans (
  network          TEXT NOT NULL,
  registry_address TEXT NOT NULL,
  newest_signature TEXT,               -- every transaction up to this one is read: the next read's `until`
  fetched_at       TEXT,               -- ISO 8601 time of the last complete read
  scan_run         INTEGER NOT NULL,   -- number of the latest read started
  -- A read cut short (crash, RPC failure) resumes here: its newest signature and the oldest one
  -- it finished (the next page's `before`), and the listing position that comes next.
  resume_top       TEXT,
  resume_before    TEXT,
  resume_position  INTEGER,
  PRIMARY KEY (network, registry_address)
) WITHOUT ROWID;
