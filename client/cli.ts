#!/usr/bin/env node
// token-merchant: the buyer's command line (registry, manifest, reputation, buy, register, keygen).
import { run } from './cli/run.js'

process.exitCode = await run(process.argv.slice(2))
