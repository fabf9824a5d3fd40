// The README's product rows ("What it sells" and the paid lines of "Endpoints") are rendered from
// the catalogue, never typed by hand: `npm run docs:products` rewrites them in README.md, and
// test/readme.test.ts fails when README.md is not what this gives.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CATALOGUE, type Catalogue } from '../lib/catalogue/catalogue.js'
import { formatTokenAmount } from '../lib/solana/token-amount.js'
import { PROJECT_ROOT } from '../project.js'

export const README_FILE = join(PROJECT_ROOT, 'README.md')
const SOLD_HEADER = '| service | route | MCP tool | price (base units) | price |\n|---|---|---|---|---|\n'
const ENDPOINTS_HEADER = '| method and path | paid | what |\n|---|---|---|\n| `GET /.well-known/agent.json` | free | the manifest |\n'

/** README.md with its product rows rendered from `catalogue`. */
export function withProductRows (readme: string, catalogue: Catalogue = CATALOGUE): string {
  const sold = catalogue.products.map(p => `| \`${p.name}\` | \`${p.method} ${p.path}\` | \`${p.tool.name}\` | ${p.price} | ${formatTokenAmount(p.price)} USDC |\n`).join('')
  const paid = catalogue.products.map(p => `| \`${p.method} ${p.path}\` | ${formatTokenAmount(p.price)} | ${p.tool.title.charAt(0).toLowerCase()}${p.tool.title.slice(1)} |\n`).join('')
  return replaceRowsAfter(replaceRowsAfter(readme, SOLD_HEADER, sold, /^\| `[a-z-]+` \| `GET /), ENDPOINTS_HEADER, paid, /^\| `GET \/api\//)
}

/** Replaces the rows right after `header` that match `row` by `rows`. */
function replaceRowsAfter (text: string, header: string, rows: string, row: RegExp): string {
  const start = text.indexOf(header)
  if (start === -1) throw new Error(`README.md has no table starting ${JSON.stringify(header.split('\n')[0])}`)
  let end = start + header.length
  for (let next = text.indexOf('\n', end); next !== -1 && row.test(text.slice(end, next)); next = text.indexOf('\n', end)) end = next + 1
  return text.slice(0, start + header.length) + rows + text.slice(end)
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(README_FILE, withProductRows(readFileSync(README_FILE, 'utf8')))
}
