// The suite's reporter (.taprc): one line per finished test file as it finishes (a whole run takes
// 15 minutes; `min` printed nothing until the end), a failed file's TAP in full (its subtests,
// diffs and stack), then one line counting the files. Tap still prints the coverage summary after
// it and sets the exit code itself. It reads the raw TAP the runner writes: a top-level
// `# Subtest: <file>`, the file's lines indented, then `ok|not ok N - <file> # time=…`.
import { Transform } from 'node:stream'

const RESULT = /^(not ok|ok) (\d+) - (.+?)(?: # (.*))?$/

export default class ProgressReporter extends Transform {
  #pending = ''
  /** The indented lines of the file running now (its subtest), kept in case it fails. */
  #current = []
  /** The last top-level result, while its indented YAML (the failure's details) follows. */
  #failed = false
  #passed = 0
  #failures = []
  #started = Date.now()

  _transform (chunk, _encoding, done) {
    const lines = (this.#pending + chunk.toString()).split('\n')
    this.#pending = lines.pop()
    for (const line of lines) this.#line(line)
    done()
  }

  _flush (done) {
    if (this.#pending !== '') this.#line(this.#pending)
    const minutes = ((Date.now() - this.#started) / 60_000).toFixed(1)
    this.push(`\n${this.#passed} passed, ${this.#failures.length} failed (test files, ${minutes} min)\n`)
    for (const name of this.#failures) this.push(`  failed: ${name}\n`)
    done()
  }

  #line (line) {
    if (line.startsWith(' ') || line === '') {
      if (this.#failed) this.push(`${line}\n`) // the failed result's own details
      else this.#current.push(line)
      return
    }
    this.#failed = false
    const result = RESULT.exec(line)
    if (result !== null) {
      const [, status, , name, directive = ''] = result
      const time = /time=([\d.]+)ms/.exec(directive)
      const took = time === null ? '' : ` (${(Number(time[1]) / 1000).toFixed(1)} s)`
      const skip = /^(skip|todo)\b/i.test(directive) ? ` # ${directive}` : ''
      const done = this.#passed + this.#failures.length + 1
      if (status === 'ok') {
        this.#passed++
        this.push(`ok     ${String(done).padStart(3)} ${name}${took}${skip}\n`)
      } else {
        this.#failures.push(name)
        this.push(`\nFAILED ${String(done).padStart(3)} ${name}${took}\n${this.#current.join('\n')}\n${line}\n`)
        this.#failed = true
      }
      this.#current = []
      return
    }
    if (line.startsWith('# Subtest: ') || line.startsWith('TAP version') || /^1\.\.\d+/.test(line)) {
      this.#current = []
      return
    }
    this.push(`${line}\n`) // top-level comments (tap's totals, bail out): as they come
  }
}
