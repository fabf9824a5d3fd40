#!/usr/bin/env node
// token-merchant: the buyer's command line (registry, manifest, reputation, buy, register, keygen).
// First: on a Node older than engines.node this stops with one sentence before anything else loads.
import '../lib/ops/supported-node.js'
import { run } from './cli/run.js'

process.exitCode = await run(process.argv.slice(2))
