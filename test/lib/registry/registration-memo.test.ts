import t from 'tap'
import {
  buildRegistrationMemo,
  InvalidRegistrationError,
  MAX_AGENT_NAME_LENGTH,
  MAX_MANIFEST_URL_LENGTH,
  parseRegistrationMemo,
  registrationFromMemos
} from '../../../lib/registry/registration-memo.js'

const URL = 'https://agent.example/.well-known/agent.json'
const longUrl = (length: number) => `https://a.example/${'p'.repeat(length - 'https://a.example/'.length)}`

t.test('a well-formed memo is a registration; unknown keys are ignored', async t => {
  t.same(parseRegistrationMemo(`{"agent":"price-bot","manifest":"${URL}","v":1}`), { name: 'price-bot', manifestUrl: URL })
  t.same(parseRegistrationMemo('  {"v":1.0,"manifest":"http://x.example","agent":"a","extra":{"k":[1]}}  '), { name: 'a', manifestUrl: 'http://x.example' })
  t.same(parseRegistrationMemo(JSON.stringify({ agent: 'ünïcødé 名前 🤖', manifest: URL, v: 1 })), { name: 'ünïcødé 名前 🤖', manifestUrl: URL })
})

t.test('everything else is not a registration', async t => {
  const rejected: Record<string, string> = {
    'not JSON': 'register me please',
    'truncated JSON': `{"agent":"a","manifest":"${URL}","v":1`,
    'a JSON array': `[{"agent":"a","manifest":"${URL}","v":1}]`,
    'a JSON string': '"agent"',
    'v as a string': `{"agent":"a","manifest":"${URL}","v":"1"}`,
    'v 2': `{"agent":"a","manifest":"${URL}","v":2}`,
    'no v': `{"agent":"a","manifest":"${URL}"}`,
    'no agent': `{"manifest":"${URL}","v":1}`,
    'no manifest': '{"agent":"a","v":1}',
    'agent a number': `{"agent":7,"manifest":"${URL}","v":1}`,
    'agent empty': `{"agent":"","manifest":"${URL}","v":1}`,
    'agent blank': `{"agent":"   ","manifest":"${URL}","v":1}`,
    'agent with a control character': `{"agent":"a\\u0007b","manifest":"${URL}","v":1}`,
    'agent too long': JSON.stringify({ agent: 'n'.repeat(MAX_AGENT_NAME_LENGTH + 1), manifest: URL, v: 1 }),
    'manifest not a string': '{"agent":"a","manifest":{"url":"https://x.example"},"v":1}',
    'manifest relative': '{"agent":"a","manifest":"/agent.json","v":1}',
    'manifest ftp': '{"agent":"a","manifest":"ftp://x.example/agent.json","v":1}',
    'manifest javascript': '{"agent":"a","manifest":"javascript:alert(1)","v":1}',
    'manifest without slashes': '{"agent":"a","manifest":"https:x.example","v":1}',
    'manifest with a space': '{"agent":"a","manifest":"https://x.example/a b","v":1}',
    'manifest with raw non-ASCII': '{"agent":"a","manifest":"https://x.example/名前","v":1}',
    'manifest without a host': '{"agent":"a","manifest":"http://","v":1}',
    'manifest too long': JSON.stringify({ agent: 'a', manifest: longUrl(MAX_MANIFEST_URL_LENGTH + 1), v: 1 })
  }
  for (const [why, memo] of Object.entries(rejected)) t.equal(parseRegistrationMemo(memo), null, why)
})

t.test('limits are inclusive', async t => {
  const name = '🤖'.repeat(MAX_AGENT_NAME_LENGTH)
  t.same(parseRegistrationMemo(JSON.stringify({ agent: name, manifest: longUrl(MAX_MANIFEST_URL_LENGTH), v: 1 })),
    { name, manifestUrl: longUrl(MAX_MANIFEST_URL_LENGTH) }, '64 characters counted as code points, 512-character URL')
})

t.test('the first memo that is a JSON object decides', async t => {
  const valid = `{"agent":"a","manifest":"${URL}","v":1}`
  t.same(registrationFromMemos(['gm', valid]), { name: 'a', manifestUrl: URL }, 'plain text before it is passed over')
  t.equal(registrationFromMemos(['{"hello":"world"}', valid]), null, 'another JSON object first')
  t.equal(registrationFromMemos([`{"agent":"a","manifest":"${URL}","v":"1"}`, valid]), null, 'an invalid registration first')
  t.same(registrationFromMemos([valid, '{"agent":"b","manifest":"https://b.example","v":1}']), { name: 'a', manifestUrl: URL })
  t.equal(registrationFromMemos([]), null)
})

t.test('the builder writes what the reader accepts and refuses the rest', async t => {
  const memo = buildRegistrationMemo({ name: 'price-bot', manifestUrl: URL })
  t.equal(memo, `{"agent":"price-bot","manifest":"${URL}","v":1}`)
  t.same(parseRegistrationMemo(memo), { name: 'price-bot', manifestUrl: URL })
  t.same(parseRegistrationMemo(buildRegistrationMemo({ name: 'say "hi" \\o/', manifestUrl: URL })), { name: 'say "hi" \\o/', manifestUrl: URL }, 'JSON escaping round-trips')

  const error = t.throws(() => buildRegistrationMemo({ name: '', manifestUrl: 'ftp://x.example' })) as InvalidRegistrationError
  t.type(error, InvalidRegistrationError)
  t.same(error.problems, ['agent must not be empty', 'manifest must be an absolute http or https URL (ASCII, non-ASCII percent-encoded)'])
  const tooLong = t.throws(() => buildRegistrationMemo({ name: 'n'.repeat(MAX_AGENT_NAME_LENGTH + 1), manifestUrl: URL })) as InvalidRegistrationError
  t.same(tooLong.problems, [`agent must be at most ${MAX_AGENT_NAME_LENGTH} characters`])
})
