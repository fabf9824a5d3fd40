// JSON with u64 values written as bare numbers, the way a Solana node writes them (rentEpoch u64::MAX,
// big lamport balances): JSON.stringify cannot print a bigint, so bigints travel as tagged strings and
// the tags are stripped afterwards.
const TAG = '\u0000u64:'
const TAGGED = /"\\u0000u64:(\d+)"/g

export function stringifyRpcJson (value: unknown): string {
  const text = JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? TAG + v.toString() : v))
  return text.includes('\\u0000u64:') ? text.replace(TAGGED, '$1') : text
}
