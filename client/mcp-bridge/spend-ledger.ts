import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { Type, type Static } from '@sinclair/typebox'
import { Value } from '@sinclair/typebox/value'

/** Days of spending kept in the file, and payments listed (the file stays small). */
const DAYS_KEPT = 31
const PAYMENTS_KEPT = 200

const Amount = Type.String({ pattern: '^[0-9]{1,30}$' })
const LedgerFile = Type.Object({
  version: Type.Literal(1),
  /** Base units spent (or held for a payment under way) per UTC day, YYYY-MM-DD. */
  spent: Type.Record(Type.String(), Amount),
  payments: Type.Array(Type.Object({
    at: Type.String(),
    tool: Type.String(),
    amount: Amount,
    transaction: Type.String(),
    network: Type.String()
  }))
})
type LedgerState = Static<typeof LedgerFile>

export type LedgerPayment = LedgerState['payments'][number]

const dayOf = (now: Date) => now.toISOString().slice(0, 10)

export class BudgetExceeded extends Error {
  constructor (readonly spentToday: bigint, readonly budget: bigint) {
    super(`daily budget: ${spentToday} of ${budget} base units already spent today (UTC)`)
    this.name = 'BudgetExceeded'
  }
}

/**
 * The bridge's spending, in a JSON file so the daily budget survives restarts. A payment holds its
 * amount before it is signed (two calls at once cannot both slip under the budget) and gives it
 * back when the merchant refuses, since then nothing moved; a call with no answer keeps it held,
 * as the money may have moved. One bridge per file: the file is not locked across processes.
 */
export function openSpendLedger (path: string, options: { budget?: bigint, now?: () => Date } = {}) {
  const now = options.now ?? (() => new Date())
  let state: LedgerState = { version: 1, spent: {}, payments: [] }
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
  if (text !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      throw new Error(`the ledger ${path} is not JSON; move it away to start a new one`)
    }
    if (!Value.Check(LedgerFile, parsed)) throw new Error(`the ledger ${path} is not a token-merchant MCP ledger; move it away to start a new one`)
    state = parsed
  }

  function save () {
    const days = Object.keys(state.spent).sort().slice(-DAYS_KEPT)
    state = { version: 1, spent: Object.fromEntries(days.map(day => [day, state.spent[day]])), payments: state.payments.slice(-PAYMENTS_KEPT) }
    mkdirSync(dirname(path), { recursive: true })
    // Written whole, then renamed: a crash leaves the old file or the new one, never half of one.
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
    renameSync(temporary, path)
  }

  const spentOn = (day: string) => BigInt(state.spent[day] ?? '0')

  return {
    spentToday: () => spentOn(dayOf(now())),

    /** Holds `amount` for a payment about to be signed, or throws BudgetExceeded; the returned day releases or keeps it. */
    hold (amount: bigint): string {
      const day = dayOf(now())
      const spent = spentOn(day)
      if (options.budget !== undefined && spent + amount > options.budget) throw new BudgetExceeded(spent, options.budget)
      state.spent[day] = (spent + amount).toString()
      save()
      return day
    },

    /** The merchant refused: nothing moved, the amount is free again. */
    release (day: string, amount: bigint): void {
      const spent = spentOn(day)
      state.spent[day] = (spent > amount ? spent - amount : 0n).toString()
      save()
    },

    /** The merchant settled: the held amount is spent, the payment listed. */
    record (payment: LedgerPayment): void {
      state.payments.push(payment)
      save()
    }
  }
}

export type SpendLedger = ReturnType<typeof openSpendLedger>
