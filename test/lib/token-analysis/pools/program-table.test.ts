import { readFileSync } from 'node:fs'
import t from 'tap'
import { LOCKERS, POOL_PROGRAMS } from '../../../../lib/token-analysis/pools/pool-programs.js'

const DOC = readFileSync(new URL('../../../../docs/token-analysis.md', import.meta.url), 'utf8')

/** The rows of the Markdown table whose header line is `header`, as arrays of trimmed cells. */
function tableAfter (header: string): string[][] {
  const lines = DOC.split('\n')
  const start = lines.indexOf(header)
  if (start < 0) throw new Error(`no table headed ${header}`)
  const rows: string[][] = []
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break
    rows.push(line.split('|').slice(1, -1).map(cell => cell.trim()))
  }
  return rows
}
const unquote = (cell: string) => cell.replace(/`/g, '')

t.test('the program table of docs/token-analysis.md is the code\'s table', async t => {
  const rows = tableAfter('| program | id | dex | lp_model | source |')
  t.same(rows.map(([name, id, dex, lpModel, source]) => ({ name, id: unquote(id), dex, lpModel, source })),
    Object.entries(POOL_PROGRAMS).map(([name, program]) => ({ name, id: program.id, dex: program.dex, lpModel: program.lpModel, source: program.source })))
})

t.test('the locker table of docs/token-analysis.md is the code\'s table', async t => {
  const rows = tableAfter('| locker | program | lock authorities | source |')
  t.same(rows.map(([name, program, authorities, source]) => ({ name, program: unquote(program), authorities: authorities === '' ? [] : authorities.split(', ').map(unquote), source })),
    LOCKERS.map(locker => ({ name: locker.name, program: locker.program, authorities: [...locker.authorities], source: locker.source })))
})
