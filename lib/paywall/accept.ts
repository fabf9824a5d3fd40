/**
 * Whether a request is a person's browser navigating, which gets the payment page rather than the
 * JSON 402. The rule: `Accept` names `text/html` itself (not `text/*` or `*\/*`) with q > 0, and
 * ranks it at least as high as `application/json`. A browser's navigation sends
 * `text/html,application/xhtml+xml,…,*\/*;q=0.8`; programs send `application/json`, `*\/*` or no
 * Accept, and keep today's JSON answer. The User-Agent is not read: a program is free to ask for HTML.
 */
export function wantsHtml (accept: string | string[] | undefined): boolean {
  if (accept === undefined) return false
  const text = Array.isArray(accept) ? accept.join(',') : accept
  // Cheap first test: almost every program's request stops here.
  if (!text.toLowerCase().includes('text/html')) return false
  let html = 0
  let json = 0
  for (const part of text.split(',')) {
    const [type, ...parameters] = part.split(';').map(piece => piece.trim().toLowerCase())
    const q = qualityOf(parameters)
    if (type === 'text/html') html = Math.max(html, q)
    else if (type === 'application/json') json = Math.max(json, q)
  }
  return html > 0 && html >= json
}

/** The q parameter (RFC 9110 §12.4.2): 1 when absent, 0 when malformed. */
function qualityOf (parameters: string[]): number {
  const q = parameters.find(parameter => parameter.startsWith('q='))
  if (q === undefined) return 1
  const value = Number(q.slice(2))
  return Number.isFinite(value) && value >= 0 && value <= 1 ? value : 0
}
