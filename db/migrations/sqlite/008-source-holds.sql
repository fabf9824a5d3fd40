-- One x402 settlement in flight per source token account: a hold names its holder (the claim id of
-- the settling payment) and ends by itself at expires_at, so a crashed holder frees the account.
CREATE TABLE source_holds (
  source     TEXT PRIMARY KEY,   -- the token account the transfer draws from
  holder     TEXT NOT NULL,      -- claim id of the settlement holding it
  expires_at INTEGER NOT NULL    -- unix ms
) WITHOUT ROWID;
