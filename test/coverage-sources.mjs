// Runs after the whole suite, before its coverage report and floor (`npm test`). tsx, which runs
// the test files and the processes they start (servers, the CLI, the bridge), leaves each file's
// source out of its source maps (it keeps it only when it sees NODE_V8_COVERAGE, and tap measures
// coverage through the inspector instead). c8 keeps one source map per file, the last one it
// reads, and maps a file whose map has a null source to a single statement, so the figures swung
// with the order of the files in .tap/coverage (73% or 93% of statements for one commit). A map
// without sourcesContent makes c8 read the source from disk; the code and mappings tsx produces
// are the same either way.
import { readdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

const directory = join(process.cwd(), '.tap', 'coverage')
const NULL_SOURCE = /"sourcesContent":\s*\[\s*null\s*\]/

for (const name of await readdir(directory).catch(() => [])) {
  if (!name.endsWith('.json')) continue
  const path = join(directory, name)
  const text = await readFile(path, 'utf8')
  if (!NULL_SOURCE.test(text)) continue
  const coverage = JSON.parse(text)
  for (const entry of Object.values(coverage['source-map-cache'] ?? {})) {
    const sources = entry?.data?.sourcesContent
    if (Array.isArray(sources) && sources.every(source => source === null)) delete entry.data.sourcesContent
  }
  await writeFile(path, JSON.stringify(coverage))
}
