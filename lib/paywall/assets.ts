import { createHash } from 'node:crypto'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { entityTag } from '../http/entity-tag.js'

/** Where `npm run build` (scripts/build-paywall.ts) writes the page's script and style, under the package root. */
export const PAYWALL_BUNDLE_DIR = join('dist', 'paywall')
export const PAYWALL_FILES = { script: 'pay.js', style: 'pay.css' } as const

export interface PaywallAsset {
  /** The URL it is served at: its name carries a digest of its content, so it can be cached for good. */
  url: string
  contentType: string
  body: Buffer
  etag: string
}

export interface PaywallAssets {
  script: PaywallAsset
  style: PaywallAsset
  /** By URL, for the asset route. */
  byUrl: Map<string, PaywallAsset>
}

/** The package root: the nearest folder above this file holding package.json (from lib/ or dist/lib/ alike). */
export function packageRoot (from = dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error('package.json not found above ' + from)
  }
}

function asset (path: string, name: string, extension: string, contentType: string, prefix: string): PaywallAsset {
  const body = readFileSync(path)
  const digest = createHash('sha256').update(body).digest('base64url').slice(0, 16)
  return { url: `${prefix}/${name}.${digest}.${extension}`, contentType, body, etag: entityTag(body.toString('latin1')) }
}

/**
 * The bundled script and style of the payment page, read once at start. Undefined when the bundle
 * was not built (`npm run build` builds it): the service then answers every 402 in JSON.
 */
export function loadPaywallAssets (prefix: string, root = packageRoot()): PaywallAssets | undefined {
  const dir = join(root, PAYWALL_BUNDLE_DIR)
  const scriptPath = join(dir, PAYWALL_FILES.script)
  const stylePath = join(dir, PAYWALL_FILES.style)
  if (!existsSync(scriptPath) || !existsSync(stylePath)) return undefined
  const script = asset(scriptPath, 'pay', 'js', 'text/javascript; charset=utf-8', prefix)
  const style = asset(stylePath, 'pay', 'css', 'text/css; charset=utf-8', prefix)
  return { script, style, byUrl: new Map([[script.url, script], [style.url, style]]) }
}
