import t from 'tap'
import { ConfigError, loadConfig } from '../../config.js'
import { isPostgresUrl, maskDatabaseUrl } from '../../db/database-url.js'
import { testEnv } from '../helper.js'

t.test('the password of a connection string never shows', async t => {
  t.equal(maskDatabaseUrl('postgres://merchant:s3cr%40t@db.internal:5432/merchant'), 'postgres://merchant:***@db.internal:5432/merchant')
  t.equal(maskDatabaseUrl('postgresql://db.internal/merchant?sslmode=require&password=hunter2'), 'postgresql://db.internal/merchant?sslmode=require&password=***')
  t.equal(maskDatabaseUrl('postgres://merchant@db/merchant'), 'postgres://merchant@db/merchant', 'nothing to mask')
  t.equal(maskDatabaseUrl('not a url, maybe a password'), '(not a URL)', 'what cannot be parsed is not echoed')
})

t.test('DATABASE_URL must be a PostgreSQL URL with a host or a socket folder', async t => {
  t.ok(isPostgresUrl('postgres://u:p@localhost:5432/db'))
  t.ok(isPostgresUrl('postgresql://localhost/db'))
  t.ok(isPostgresUrl('postgres:///db?host=/var/run/postgresql'))
  t.notOk(isPostgresUrl('mysql://u:p@localhost/db'))
  t.notOk(isPostgresUrl('postgres:///db'))
  t.notOk(isPostgresUrl('localhost:5432'))
})

t.test('configuration: the store is SQLite unless DATABASE_URL is set; a bad one is refused without echoing it', async t => {
  const sqlite = loadConfig(testEnv(t))
  t.equal(sqlite.DATABASE_URL, undefined)
  t.equal(sqlite.DATABASE_POOL_SIZE, 10)
  const postgres = loadConfig(testEnv(t, { DATABASE_URL: 'postgres://u:p@db/merchant', DATABASE_POOL_SIZE: '4' }))
  t.equal(postgres.DATABASE_URL, 'postgres://u:p@db/merchant')
  t.equal(postgres.DATABASE_POOL_SIZE, 4)
  const error = t.throws(() => loadConfig(testEnv(t, { DATABASE_URL: 'mysql://u:hunter2@db/x', DATABASE_POOL_SIZE: '1' }))) as ConfigError
  t.same(error.problems, [
    'DATABASE_URL: the value is not a postgres:// or postgresql:// URL with a host',
    'DATABASE_POOL_SIZE: 1 is not a whole number from 2 to 1000'
  ])
})
