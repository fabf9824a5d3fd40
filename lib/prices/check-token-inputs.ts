import { AppError, isAppError } from '../errors/app-error.js'
import { validationError } from '../errors/error-body.js'
import { parseTokenInput, TOKEN_INPUT_PATTERN } from './token-input.js'

const TOKEN_INPUT = new RegExp(TOKEN_INPUT_PATTERN)

/** One token the caller named: where it came from (`params`, `querystring`, `arguments`), its name, its raw value. */
export interface TokenInputField {
  in: string
  path: string
  value: unknown
}

/**
 * What fetch-price checks before asking for payment, whichever door the call came through (HTTP
 * route or MCP tool): a mint-like string that is not 32 bytes is a VALIDATION_ERROR, an unknown
 * or ambiguous symbol is TOKEN_NOT_FOUND or AMBIGUOUS_SYMBOL. Nobody pays to learn those.
 * Values the schema pattern refuses are left to schema validation.
 */
export async function checkTokenInputs (prices: { resolveToken: (raw: string) => Promise<unknown> }, fields: TokenInputField[]): Promise<void> {
  for (const field of fields) {
    if (typeof field.value !== 'string' || !TOKEN_INPUT.test(field.value)) continue
    const parsed = parseTokenInput(field.value)
    if (parsed.kind === 'invalid') throw validationError([{ in: field.in, path: field.path, message: parsed.reason }])
    try {
      await prices.resolveToken(field.value)
    } catch (error) {
      throw namingField(error, field)
    }
  }
}

/** A symbol refused as unknown or ambiguous names the argument it came in: the price service calls every symbol `token`. */
function namingField (error: unknown, field: TokenInputField): unknown {
  if (!isAppError(error) || field.path === 'token' || (error.code !== 'TOKEN_NOT_FOUND' && error.code !== 'AMBIGUOUS_SYMBOL')) return error
  const { token: _token, ...details } = error.details ?? {}
  return new AppError(error.code, `${field.path}: ${error.message}`, { details: { [field.path]: field.value, ...details }, headers: error.headers, cause: error })
}
