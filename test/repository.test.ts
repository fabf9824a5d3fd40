import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
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
  const offenders = files.filter(file => OUTSIDE.test(readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8')))
  t.same(offenders, [], 'files naming the notes folder')
})

// One direction between the core and the wire contract: lib/ builds the documents schemas/
// describes, so schemas/ (the lower layer) never imports lib/.
t.test('schemas/ never imports lib/', async t => {
  const files = execFileSync('git', ['ls-files', 'schemas'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n').filter(file => file.endsWith('.ts'))
  t.ok(files.length > 5, 'the schema files were listed')
  const offenders = files.filter(file => /from '\.\.\/lib\//.test(readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8')))
  t.same(offenders, [], 'schema files importing lib/')
})
