// `npm start` runs this before the build: a setting the service would refuse (PORT=abc, a missing
// fee payer keypair) is said in a second, in the words server.ts uses, instead of after the build.
import { ConfigError, planFromEnvironment } from '../config.js'

try {
  planFromEnvironment()
} catch (error) {
  if (!(error instanceof ConfigError)) throw error
  process.stderr.write(`token-merchant: ${error.message}\n`)
  process.exit(1)
}
