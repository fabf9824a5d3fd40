import type pg from 'pg'
import type { DatabaseCall } from './connection.js'

/**
 * Runs `work` in one transaction on one pooled connection; rolls back on failure and closes a
 * connection that failed rather than handing it back to the pool.
 */
export async function inTransaction<T> (pool: pg.Pool, callDatabase: DatabaseCall, work: (client: pg.PoolClient) => Promise<T>, begin = 'BEGIN'): Promise<T> {
  return await callDatabase(async () => {
    const client = await pool.connect()
    let failed = false
    try {
      await client.query(begin)
      const result = await work(client)
      await client.query('COMMIT')
      return result
    } catch (error) {
      failed = true
      await client.query('ROLLBACK').catch(() => {})
      throw error
    } finally {
      client.release(failed)
    }
  })
}
