import type { ErrorBody } from '../errors/error-body.js'
import type { HttpAnswer } from '../http/http-answer.js'
import type { Catalogue } from '../catalogue/catalogue.js'
import type { PaidServiceName } from '../payment/catalog.js'
import type { PaywallAssets } from './assets.js'
import { escapeHtml, PAGE_HEADERS } from './page.js'

/**
 * A paid route's refusal of a person's request (a mistyped token, a malformed address) as a page:
 * the same status and error, said in words, in place of the JSON a browser would show raw. Nothing
 * to pay: no script, the page's style only. Programs keep the JSON (lib/paywall/accept.ts).
 */
export function createErrorPage (options: { assets: PaywallAssets, catalogue: Catalogue }) {
  return function errorPage (service: PaidServiceName, body: ErrorBody): HttpAnswer {
    const product = options.catalogue.product(service).tool.title
    const validation = Array.isArray(body.validation) ? body.validation as Array<{ path?: unknown, message?: unknown }> : []
    const problems = validation.map(problem => `<li><code>${escapeHtml(String(problem.path ?? ''))}</code> ${escapeHtml(String(problem.message ?? ''))}</li>`).join('')
    return {
      statusCode: body.statusCode,
      headers: { ...PAGE_HEADERS, 'cache-control': 'no-store' },
      body: `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(`${product}: ${body.error}`)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${options.assets.style.url}">
</head>
<body>
<main>
<p class="eyebrow">${escapeHtml(`${body.statusCode} ${body.error}`)}</p>
<h1>${escapeHtml(product)}</h1>
<p class="description" id="message">${escapeHtml(body.message)}</p>
${problems === '' ? '' : `<ul id="problems">${problems}</ul>\n`}<p id="status">Nothing was charged. Check the address and try again. <small>Error <code>${escapeHtml(body.code)}</code>, request <code>${escapeHtml(body.requestId)}</code>.</small></p>
</main>
</body>
</html>
`
    }
  }
}
