-- The busiest clients' request and failure counts per instance (lib/limits/shared-counts.ts): every
-- process on this file holds a client to one limit. A row is replaced by its instance's next figure
-- and pruned once its window ended.
CREATE TABLE limit_counts (
  instance   TEXT NOT NULL,
  key        TEXT NOT NULL,
  count      INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,   -- unix ms: the end of the counted window
  PRIMARY KEY (instance, key)
);
CREATE INDEX limit_counts_expires_at ON limit_counts (expires_at);
