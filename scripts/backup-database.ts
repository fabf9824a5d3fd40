import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { ConfigSchema } from '../config.js'
import { backupDatabase } from '../db/backup.js'

/**
 * `npm run backup -- <destination file>`: an online backup of the service's SQLite database
 * (DATABASE_PATH, from the environment or .env as the service reads it), safe while it runs.
 */
async function main (): Promise<number> {
  const [destination, ...rest] = process.argv.slice(2)
  if (destination === undefined || rest.length > 0 || destination.startsWith('-')) {
    process.stderr.write('usage: npm run backup -- <destination file>\n')
    return 1
  }
  if (existsSync('.env')) process.loadEnvFile('.env')
  const source = process.env.DATABASE_PATH !== undefined && process.env.DATABASE_PATH !== '' ? process.env.DATABASE_PATH : ConfigSchema.properties.DATABASE_PATH.default
  try {
    const report = await backupDatabase(resolve(source), resolve(destination))
    process.stdout.write(`${JSON.stringify(report)}\n`)
    return 0
  } catch (error) {
    process.stderr.write(`token-merchant backup: ${(error as Error).message}\n`)
    return 1
  }
}

process.exitCode = await main()
