import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { PROJECT_ROOT } from '../project.js'

// The repository stands alone: a clone with nothing beside it passes its tests, so no tracked
// file may read or cite the team's notes kept outside it.
const OUTSIDE = /\.\.\/shared\/|(^|[^-\w])shared\/(reference|docs)\//
const SELF = 'test/repository.test.ts'

t.test('no tracked file reads or cites ../shared', async t => {
  const files = execFileSync('git', ['ls-files'], { cwd: PROJECT_ROOT, encoding: 'utf8' }).split('\n')
    .filter(file => file !== '' && file !== SELF && !file.endsWith('package-lock.json') && !file.includes('/fixtures/samples/'))
  t.ok(files.length > 100, 'the tracked files were listed')
  const offenders = files.filter(file => OUTSIDE.test(readFileSync(`${PROJECT_ROOT}/${file}`, 'utf8')))
  t.same(offenders, [], 'files naming ../shared')
})
