import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { build } from 'esbuild'
import { packageRoot, PAYWALL_BUNDLE_DIR } from '../lib/paywall/assets.js'

/**
 * Bundles the payment page (paywall/pay.ts with @wallet-standard/app, and paywall/pay.css) into
 * dist/paywall/pay.js and pay.css, minified for browsers: what the service serves
 * (lib/paywall/assets.ts). Run by `npm run build` and `npm test`; the browser test runs it too.
 */
export async function buildPaywall (root = packageRoot()): Promise<void> {
  await build({
    absWorkingDir: root,
    entryPoints: [join('paywall', 'pay.ts'), join('paywall', 'pay.css')],
    outdir: PAYWALL_BUNDLE_DIR,
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022', 'chrome111', 'firefox113', 'safari16.4'],
    legalComments: 'none',
    logLevel: 'warning'
  })
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await buildPaywall()
