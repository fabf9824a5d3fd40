// Where the *.mainnet.ts tests find the real mainnet fixtures. The bytes are never in the repository:
// `npm run test:mainnet -- <folder>` (scripts/test-mainnet.ts) names the folder in MAINNET_FIXTURES.
import { join } from 'node:path'

/** A path inside the fixtures folder, e.g. mainnetFixtures('mainnet-pools', 'accounts'). */
export function mainnetFixtures (...parts: string[]): string {
  const folder = process.env.MAINNET_FIXTURES
  if (folder === undefined || folder === '') {
    throw new Error('MAINNET_FIXTURES must name the folder of the mainnet fixtures (run `npm run test:mainnet -- <folder>`)')
  }
  return join(folder, ...parts)
}
