import { ERROR_CODES, type ErrorCode } from '../../schemas/error-codes.js'

export { ERROR_CODES, type ErrorCode }

export function statusOf (code: ErrorCode): number {
  return ERROR_CODES[code].status
}

/** The code for a status that Fastify or a plugin raised on its own: the first code of that status. */
export const CODE_BY_STATUS: ReadonlyMap<number, ErrorCode> = new Map(
  (Object.keys(ERROR_CODES) as ErrorCode[]).reverse().map(code => [ERROR_CODES[code].status, code])
)

/** The README's error table, rendered from ERROR_CODES. */
export function renderErrorTable (): string {
  const rows = (Object.keys(ERROR_CODES) as ErrorCode[]).map(code => `| ${ERROR_CODES[code].status} | \`${code}\` | ${ERROR_CODES[code].meaning} |`)
  return ['| status | code | meaning |', '|---|---|---|', ...rows].join('\n')
}
