import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The project root, found the same way whether this file runs from source (tsx, tap) or
 * from dist/, so SQL migrations and package.json are read from where they live.
 */
function findRoot (): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string }
      if (pkg.name === 'token-merchant') return dir
    } catch {}
    const parent = dirname(dir)
    if (parent === dir) throw new Error('cannot find the token-merchant package root')
    dir = parent
  }
}

export const PROJECT_ROOT = findRoot()

const pkg = JSON.parse(readFileSync(join(PROJECT_ROOT, 'package.json'), 'utf8')) as { version: string }

/** major.minor.patch of this service, from package.json. */
export const SERVICE_VERSION = pkg.version
