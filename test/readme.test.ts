import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { ConfigSchema } from '../config.js'
import { PROJECT_ROOT } from '../project.js'

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
  t.equal(ci.at(-1), 'npm test')
  t.match(ci.join('\n'), /npm ci/)
})

t.test('every npm command in the README exists', async (t) => {
  const commands = codeBlocks.join('\n').matchAll(/npm (?:run ([\w:-]+)|(start|test))\b/g)
  const used = new Set([...commands].map(m => m[1] ?? m[2]))
  t.ok(used.size >= 5, `the README names npm commands: ${[...used].join(', ')}`)
  for (const script of used) t.ok(pkg.scripts[script], `npm script "${script}" exists`)
})

t.test('the configuration table lists exactly the variables the service reads', async (t) => {
  const section = readme.slice(readme.indexOf('## Configuration'), readme.indexOf('## Errors'))
  const documented = new Set([...section.matchAll(/^\| `([A-Z0-9_]+)` \|/gm)].map(m => m[1]))
  t.same([...documented].sort(), Object.keys(ConfigSchema.properties).sort())
})
