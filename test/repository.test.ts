import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import t from 'tap'
import { CATALOGUE } from '../lib/catalogue/catalogue.js'
import { PROJECT_ROOT } from '../project.js'

// The repository stands alone: a clone with nothing beside it passes its tests, so no tracked
// file may read or cite the team's notes kept in the folder beside the checkout. The pattern is
// assembled from parts so that this file does not name that folder itself.
const NOTES = 'shared'
const OUTSIDE = new RegExp(`\\.\\./${NOTES}/|(^|[^-\\w])${NOTES}/(reference|docs)/`)

t.test('no tracked file reads or cites the notes kept beside the checkout', async t => {
  const files = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n')
    .filter(file => file !== '' && !file.endsWith('package-lock.json') && !file.includes('/fixtures/samples/'))
  t.ok(files.length > 100, 'the tracked files were listed')
  const offenders = files.filter(file => file !== '.ci/run' && OUTSIDE.test(readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8')))
  t.same(offenders, [], 'files naming the notes folder')
  // CI alone hands the real mainnet fixtures kept there to `npm run test:mainnet`, and names nothing else there.
  const ci = readFileSync(`${PROJECT_ROOT}/.ci/run`, 'utf8').split('\n').filter(line => OUTSIDE.test(line))
  t.same(ci, [`npm run test:mainnet -- ../${NOTES}/fixtures`], '.ci/run names only the fixtures folder, for test:mainnet')
})

// Every test of the suite takes its folder from testFolder(t): test/fixtures/test-folder.ts says why.
t.test('the suite\'s tests take their folder from testFolder(t), not from testdir() itself', async t => {
  const files = execFileSync('git', ['ls-files', 'test'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n')
    .filter(file => file.endsWith('.ts') && file !== 'test/fixtures/test-folder.ts')
  t.ok(files.length > 100, 'the test files were listed')
  const offenders = files.filter(file => /\bt\.testdir\(/.test(readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8')))
  t.same(offenders, [], 'test files calling testdir() themselves')
})

// One direction between the core and the wire contract: lib/ builds the documents schemas/
// describes, so schemas/ (the lower layer) never imports lib/.
t.test('schemas/ never imports lib/', async t => {
  const files = execFileSync('git', ['ls-files', 'schemas'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(file => file.endsWith('.ts'))
  t.ok(files.length > 5, 'the schema files were listed')
  const offenders = files.filter(file => /from '\.\.\/lib\//.test(readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8')))
  t.same(offenders, [], 'schema files importing lib/')
})

// The store's layout: db/contracts/ holds what every engine shares and names no engine; each
// engine's code has a folder of its own (one per folder of db/migrations/) and never reaches into
// another's. Followed through every relative import, type-only ones too: a contract that imported
// a neutral file that imports an engine would tie the contracts to that engine all the same.
const DB = join(PROJECT_ROOT, 'db')
const IMPORT = /\b(?:import|export)\s+(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g

function tsFiles (dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[]).filter(file => file.endsWith('.ts')).map(file => join(dir, file))
}

/** The project's TypeScript files `file` imports (relative specifiers; packages are not followed). */
function importsOf (file: string): string[] {
  return [...readFileSync(file, 'utf8').matchAll(IMPORT)]
    .map(match => match[1] ?? match[2])
    .filter(specifier => specifier.startsWith('.'))
    .map(specifier => resolve(dirname(file), specifier).replace(/\.js$/, '.ts'))
    .filter(target => existsSync(target))
}

/** Every project file `file` reaches through its imports, and the first file on the way that imports it. */
function reachedFrom (file: string): Map<string, string> {
  const reached = new Map<string, string>()
  const queue = [file]
  for (let current = queue.shift(); current !== undefined; current = queue.shift()) {
    for (const target of importsOf(current)) {
      if (target === file || reached.has(target)) continue
      reached.set(target, current)
      queue.push(target)
    }
  }
  return reached
}

t.test('db/contracts/ imports no engine folder, and no engine folder imports another', async t => {
  const engines = readdirSync(join(DB, 'migrations'))
  const where = (file: string) => relative(DB, file).split(sep)[0]
  const name = (file: string) => relative(PROJECT_ROOT, file)

  const rules = [
    { folder: 'contracts', forbidden: engines },
    ...engines.map(engine => ({ folder: engine, forbidden: engines.filter(other => other !== engine) }))
  ]
  const offenders: string[] = []
  for (const { folder, forbidden } of rules) {
    const files = tsFiles(join(DB, folder))
    t.ok(files.length > 0, `db/${folder}/ has files`)
    for (const file of files) {
      for (const [target, importer] of reachedFrom(file)) {
        // Named where the imports enter the forbidden folder, not for every file reached inside it.
        if (forbidden.includes(where(target)) && !forbidden.includes(where(importer))) offenders.push(`${name(file)} reaches ${name(target)} (imported by ${name(importer)})`)
      }
    }
  }
  t.same(offenders, [], 'imports across the layout')
})

// A product is its entry in the catalogue (lib/catalogue/), its service and its schema: every door
// and document derives from the entry, so its names (the service's and the MCP tool's) appear in at
// most 3 other source files of the service (issue #40: 27 before the catalogue). Each product names
// its own files here, so a new product is counted too.
const PRODUCT_FILES: Record<string, string[]> = {
  'fetch-price': ['schemas/price.ts', 'lib/prices/'],
  'analyze-token': ['schemas/token-analysis.ts', 'schemas/token-analysis-example.ts', 'lib/token-analysis/']
}
const SERVICE_SOURCES = ['app.ts', 'server.ts', 'config.ts', 'project.ts', 'lib', 'plugins', 'routes', 'schemas']

t.test('a product\'s names appear in at most 3 source files beside its own and the catalogue', async t => {
  const sources = execFileSync('git', ['ls-files', ...SERVICE_SOURCES], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n')
    .filter(file => file.endsWith('.ts') && !file.startsWith('lib/catalogue/'))
  t.ok(sources.length > 100, 'the source files were listed')
  for (const product of CATALOGUE.products) {
    const own = PRODUCT_FILES[product.name]
    t.ok(own, `${product.name}: its own files are named here`)
    const names = [product.name, product.tool.name]
    const naming = sources
      .filter(file => !(own ?? []).some(path => file === path || (path.endsWith('/') && file.startsWith(path))))
      .filter(file => names.some(name => readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8').includes(name)))
    t.ok(naming.length <= 3, `${product.name}: named in ${naming.length} files: ${naming.join(', ')}`)
  }
})

// The catalogue is at the bottom of lib/: the doors and the documents read it, so it reaches no
// Fastify, no door, not the delivery core and none of the places it is derived into.
const ABOVE_THE_CATALOGUE = ['lib/delivery/', 'lib/doors/', 'lib/tools/', 'lib/x402/', 'lib/manifest/', 'lib/paywall/', 'lib/ops/', 'plugins/', 'routes/', 'app.ts']
const PACKAGE_IMPORT = /\bfrom\s+['"]([^'".][^'"]*)['"]/g

t.test('lib/catalogue/ imports no Fastify, no door and not the core', async t => {
  const files = tsFiles(join(PROJECT_ROOT, 'lib', 'catalogue'))
  t.ok(files.length >= 3, 'the catalogue has files')
  const offenders: string[] = []
  for (const file of files) {
    const reached = [file, ...reachedFrom(file).keys()]
    for (const target of reached) {
      const path = relative(PROJECT_ROOT, target).split(sep).join('/')
      if (ABOVE_THE_CATALOGUE.some(above => path.startsWith(above))) offenders.push(`${relative(PROJECT_ROOT, file)} reaches ${path}`)
      const packages = [...readFileSync(target, 'utf8').matchAll(PACKAGE_IMPORT)].map(match => match[1])
      if (packages.some(name => name === 'fastify' || name.startsWith('fastify/') || name.startsWith('@fastify/'))) offenders.push(`${path} imports Fastify`)
    }
  }
  t.same([...new Set(offenders)], [], 'imports above the catalogue')
})

// The layers of lib/ (docs/architecture.md, "Layers"), followed through every relative import,
// type-only ones too. At the bottom, lib/contract/: what every door and payment method shares
// (Refusal, the held payment, Settled, re-delivery, the request key). Above it the payment
// methods, which verify, claim and settle, and never know which door asked or how the core drives
// them; the core and the doors stand above those. The web framework is the plugins' and routes'.
const DOORS_AND_CORE = ['lib/doors/', 'lib/paywall/', 'lib/delivery/', 'plugins/', 'routes/', 'app.ts']
const PAYMENT_METHODS = ['lib/payment', 'lib/x402']
/** What lib/contract/ may reach: itself, the error table, the Solana helpers, the store's contracts and schemas/. */
const BELOW_THE_CONTRACT = ['lib/contract/', 'lib/errors/', 'lib/solana/', 'db/contracts/', 'schemas/']

const projectPath = (file: string) => relative(PROJECT_ROOT, file).split(sep).join('/')
const isFastify = (name: string) => name === 'fastify' || name.startsWith('fastify/') || name === 'fastify-plugin' || name.startsWith('@fastify/')

/** Where the imports of `folders`, followed through every file they reach, enter a path `forbidden` accepts: "importer imports target". */
function reachingInto (folders: string[], forbidden: (path: string) => boolean): string[] {
  const offenders = new Set<string>()
  for (const folder of folders) {
    for (const file of tsFiles(join(PROJECT_ROOT, folder))) {
      for (const [target, importer] of reachedFrom(file)) {
        if (forbidden(projectPath(target)) && !forbidden(projectPath(importer))) offenders.add(`${projectPath(importer)} imports ${projectPath(target)}`)
      }
    }
  }
  return [...offenders]
}

t.test('lib/ imports no Fastify: its types stay in plugins/ and routes/', async t => {
  const files = tsFiles(join(PROJECT_ROOT, 'lib'))
  t.ok(files.length > 100, 'the lib/ files were listed')
  const offenders = files.filter(file => [...readFileSync(file, 'utf8').matchAll(PACKAGE_IMPORT)].some(match => isFastify(match[1]))).map(projectPath)
  t.same(offenders, [], 'lib/ files importing Fastify')
})

t.test('the payment methods reach no door and not the delivery core', async t => {
  t.ok(PAYMENT_METHODS.every(folder => tsFiles(join(PROJECT_ROOT, folder)).length > 5), 'the payment methods have files')
  t.same(reachingInto(PAYMENT_METHODS, path => DOORS_AND_CORE.some(above => path.startsWith(above))), [], 'imports from a payment method up into a door or the core')
})

t.test('the delivery core reaches no door and no payment method', async t => {
  t.ok(tsFiles(join(PROJECT_ROOT, 'lib', 'delivery')).length >= 1, 'the core has files')
  const above = [...DOORS_AND_CORE.filter(path => path !== 'lib/delivery/'), ...PAYMENT_METHODS.map(folder => `${folder}/`)]
  t.same(reachingInto(['lib/delivery'], path => above.some(folder => path.startsWith(folder))), [], 'imports from the core up into a door or a payment method')
})

t.test('lib/contract/ reaches nothing above it', async t => {
  t.ok(tsFiles(join(PROJECT_ROOT, 'lib', 'contract')).length >= 4, 'the contract has files')
  t.same(reachingInto(['lib/contract'], path => !BELOW_THE_CONTRACT.some(below => path.startsWith(below))), [], 'imports from the contract up')
})

// The house from the bottom up: schemas/, then db/ (the store), then lib/, then the configuration
// and the service's entry files at the root. The store throws its own error when the database
// cannot answer and lib/ takes the settings it reads as types of its own, so no import runs back
// up: db/ reaches nothing of lib/, and lib/ none of the root files above it.
const ROOT_FILES_ABOVE_LIB = ['config.ts', 'check-config.ts', 'app.ts', 'server.ts']

t.test('db/ imports nothing from lib/, and lib/ nothing from config.ts or the other root files above it', async t => {
  t.ok(tsFiles(join(PROJECT_ROOT, 'db')).length > 10, 'the store has files')
  t.same(reachingInto(['db'], path => path.startsWith('lib/')), [], 'imports from the store up into lib/')
  t.same(reachingInto(['lib'], path => ROOT_FILES_ABOVE_LIB.includes(path)), [], 'imports from lib/ up into the root files')
})

// The doors (docs/architecture.md, "Layers"): every way in for a buyer drives the delivery core,
// and they stand side by side in lib/doors/: the HTTP door in the files there, each other door in
// a folder of its own (mcp/, a2a/). A door stands on the floors below it, never on another door,
// and nothing else in lib/ stands on a door, so a door is added or taken away on its own.
const DOORS = 'lib/doors/'
/** The wire protocols only a door speaks. */
const DOOR_PROTOCOLS = ['@modelcontextprotocol/sdk', '@a2a-js/sdk']

/** The door a project path belongs to: its folder in lib/doors/, 'http' for the files directly there; undefined outside lib/doors/. */
function doorOf (path: string): string | undefined {
  if (!path.startsWith(DOORS)) return undefined
  const parts = path.slice(DOORS.length).split('/')
  return parts.length > 1 ? parts[0] : 'http'
}

t.test('the doors live in lib/doors/: whatever in lib/ drives the core or speaks a door\'s protocol is there', async t => {
  const files = tsFiles(join(PROJECT_ROOT, 'lib'))
  t.same([...new Set(files.map(file => doorOf(projectPath(file))).filter(door => door !== undefined))].sort(), ['a2a', 'http', 'mcp'], 'the doors')
  const offenders = files.filter(file => {
    const path = projectPath(file)
    if (path.startsWith(DOORS) || path.startsWith('lib/delivery/')) return false
    const drivesTheCore = importsOf(file).some(target => projectPath(target).startsWith('lib/delivery/'))
    const speaksADoorProtocol = [...readFileSync(file, 'utf8').matchAll(PACKAGE_IMPORT)].some(match => DOOR_PROTOCOLS.some(name => match[1] === name || match[1].startsWith(`${name}/`)))
    return drivesTheCore || speaksADoorProtocol
  }).map(projectPath)
  t.same(offenders, [], 'door code outside lib/doors/')
})

t.test('nothing in lib/ outside lib/doors/ reaches a door', async t => {
  const outside = readdirSync(join(PROJECT_ROOT, 'lib')).filter(name => name !== 'doors').map(name => `lib/${name}`)
  t.ok(outside.length > 10, 'the folders of lib/ were listed')
  const offenders = new Set<string>()
  for (const folder of outside) {
    for (const file of tsFiles(join(PROJECT_ROOT, folder))) {
      for (const [target, importer] of reachedFrom(file)) {
        const door = doorOf(projectPath(target))
        if (door !== undefined && doorOf(projectPath(importer)) === undefined) offenders.add(`${projectPath(importer)} imports ${projectPath(target)}`)
      }
    }
  }
  t.same([...offenders], [], 'imports into a door from below it')
})

t.test('a door reaches no other door', async t => {
  const offenders = new Set<string>()
  for (const file of tsFiles(join(PROJECT_ROOT, 'lib', 'doors'))) {
    const own = doorOf(projectPath(file))
    for (const [target, importer] of reachedFrom(file)) {
      const door = doorOf(projectPath(target))
      if (door !== undefined && door !== own && doorOf(projectPath(importer)) === own) offenders.add(`${projectPath(importer)} imports ${projectPath(target)}`)
    }
  }
  t.same([...offenders], [], 'imports from one door into another')
})
