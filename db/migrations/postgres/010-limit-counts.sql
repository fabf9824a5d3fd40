-- The busiest clients' request and failure counts per instance (see SQLite migration 015).
CREATE TABLE limit_counts (
  instance   text NOT NULL,
  key        text NOT NULL,
  count      integer NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (instance, key)
);
CREATE INDEX limit_counts_expires_at ON limit_counts (expires_at);
