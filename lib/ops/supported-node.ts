// The oldest Node the service, the CLI and the MCP bridge run on: package.json's engines.node
// (better-sqlite3 13 needs Node 22, require(esm) and the rest of 22.12). Imported first by each
// entry point so that an older Node stops with one sentence instead of a native-addon or syntax error
// from deep inside a dependency. It imports nothing: it must evaluate on any Node.
export const MINIMUM_NODE = '22.12.0'

/** 22.12.0 → 22012000, so that versions compare as numbers; undefined when it is no version. */
function rank (version: string): number | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version)
  return match === null ? undefined : Number(match[1]) * 1e6 + Number(match[2]) * 1e3 + Number(match[3])
}

/** The problem with running on `version` (e.g. `process.version`), or undefined when it is supported. */
export function nodeVersionProblem (version: string, minimum = MINIMUM_NODE): string | undefined {
  const have = rank(version)
  if (have !== undefined && have >= (rank(minimum) as number)) return undefined
  return `Node.js ${minimum} or later is required; this is ${version} (${process.execPath}). ` +
    'Install Node 24 LTS or 22 (see docs/development.md#node).'
}

const problem = nodeVersionProblem(process.version)
if (problem !== undefined) {
  process.stderr.write(`token-merchant: ${problem}\n`)
  process.exit(1)
}
