import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import t from 'tap'
import { ConfigSchema } from '../config.js'
import { PROJECT_ROOT } from '../project.js'
import { withProductRows } from '../scripts/readme-products.js'
import { createCatalogue, CATALOGUE } from '../lib/catalogue/catalogue.js'

const readme = readFileSync(join(PROJECT_ROOT, 'README.md'), 'utf8')
const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string>, bin?: Record<string, string> }
const codeBlocks = [...readme.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)].map(m => m[1])

t.test('the README opens with the two newcomer commands', async (t) => {
  const first = codeBlocks[0].split('\n').map(line => line.replace(/#.*$/, '').trim()).filter(Boolean)
  t.same(first, ['npm ci && npm start', 'npm test'])
  t.ok(readme.indexOf('```sh') < readme.indexOf('## '), 'before any section')
})

t.test('CI runs the README test command', async (t) => {
  const ci = readFileSync(join(PROJECT_ROOT, '.ci', 'run'), 'utf8').trim().split('\n')
  // The suite on Node 24, then (Node 22) the build and the demo: `npm test` is a line of its own, not the last.
  t.ok(ci.includes('npm test'), '.ci/run runs npm test')
  t.match(ci.join('\n'), /npm ci/)
})

t.test('every npm command in the README exists', async (t) => {
  const commands = codeBlocks.join('\n').matchAll(/npm (?:run ([\w:-]+)|(start|test))\b/g)
  const used = new Set([...commands].map(m => m[1] ?? m[2]))
  t.ok(used.size >= 5, `the README names npm commands: ${[...used].join(', ')}`)
  for (const script of used) t.ok(pkg.scripts[script], `npm script "${script}" exists`)
})

t.test('docs/configuration.md lists exactly the variables the service reads', async (t) => {
  const table = readFileSync(join(PROJECT_ROOT, 'docs', 'configuration.md'), 'utf8')
  const documented = new Set([...table.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map(m => m[1]))
  t.same([...documented].sort(), Object.keys(ConfigSchema.properties).sort())
})

t.test("the README's configuration section names only variables the service reads", async (t) => {
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Errors'))
  const named = new Set([...section.matchAll(/^\| (`[A-Z0-9_]+`(?:, `[A-Z0-9_]+`)*) \|/gm)].flatMap(m => m[1].split(', ').map(name => name.slice(1, -1))))
  t.ok(named.size >= 10, `the common variables (${named.size})`)
  for (const name of named) t.ok(name in ConfigSchema.properties, `${name} is read by the service`)
})

t.test("the README's product rows are the catalogue's (`npm run docs:products` writes them)", async (t) => {
  t.equal(readme, withProductRows(readme), 'README.md is what the catalogue renders')
  const [first] = CATALOGUE.products
  const extra = { ...first, name: 'test-extra', path: '/api/test-extra/:token', tool: { ...first.tool, name: 'test_extra' }, operation: { ...first.operation, id: 'testExtra' } }
  const third = withProductRows(readme, createCatalogue([...CATALOGUE.products, extra]))
  t.equal(third.split('\n').length, readme.split('\n').length + 2, 'a product more is a row more in each table')
  t.ok(third.includes('| `test-extra` | `GET /api/test-extra/:token` | `test_extra` |'), 'its row in "What it sells"')
  t.ok(third.includes('| `GET /api/test-extra/:token` | 0.05 |'), 'and in "Endpoints"')
})

t.test('the README stays a manual: at most 700 lines', async (t) => {
  t.ok(readme.split('\n').length <= 700, `${readme.split('\n').length} lines`)
})

// The manual links into docs/ for the engineering record, and docs/ back into the manual: a moved
// section must not leave a dead link or anchor behind.
const markdownFiles = ['README.md', ...readdirSync(join(PROJECT_ROOT, 'docs')).filter(name => name.endsWith('.md')).map(name => join('docs', name))]
const withoutCode = (text: string) => text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '')

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorsOf (file: string): Set<string> {
  const prose = readFileSync(join(PROJECT_ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '').replace(/`/g, '')
  const headings = prose.matchAll(/^#{1,6} (.+)$/gm)
  return new Set([...headings].map(([, heading]) => heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')))
}

t.test('every link in the README and docs/ leads to a file that exists and a heading it has', async (t) => {
  let checked = 0
  for (const file of markdownFiles) {
    const text = withoutCode(readFileSync(join(PROJECT_ROOT, file), 'utf8'))
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target)) continue // http(s): outside the repository
      const [path, anchor] = target.split('#')
      const linked = path === '' ? file : join(dirname(file), path)
      t.ok(existsSync(join(PROJECT_ROOT, linked)), `${file}: ${target} names a file that exists`)
      if (anchor !== undefined && linked.endsWith('.md')) t.ok(anchorsOf(linked).has(anchor), `${file}: ${target} names a heading of ${linked}`)
      checked++
    }
  }
  t.ok(checked >= 30, `the README and docs/ link to each other (${checked} links)`)
})

t.test('every script the README and docs/ run with tsx exists', async (t) => {
  for (const file of markdownFiles) {
    for (const [, script] of readFileSync(join(PROJECT_ROOT, file), 'utf8').matchAll(/npx tsx ([\w./-]+\.ts)/g)) {
      t.ok(existsSync(join(PROJECT_ROOT, script)), `${file}: ${script} exists`)
    }
  }
})
