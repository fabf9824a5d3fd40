import { getMultisigEncoder, getMultisigSize, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { generateKeyPairSigner, type Address } from '@solana/kit'
import t from 'tap'
import { decodeOwnerMultisig } from '../../../lib/payment/owner-multisig.js'

const DEFAULT_KEY = '11111111111111111111111111111111' as Address

// The multisig account as the token program writes it (its own codec), then one field broken at a time.
t.test('a multisig is read only when the token program could have written it', async (t) => {
  const members = await Promise.all([1, 2, 3].map(async () => (await generateKeyPairSigner()).address))
  const encode = (m: number, n: number, isInitialized: boolean, signers: Address[]) =>
    new Uint8Array(getMultisigEncoder().encode({ m, n, isInitialized, signers: [...signers, ...Array(11 - signers.length).fill(DEFAULT_KEY)] }))
  const good = encode(2, 3, true, members)
  t.equal(good.length, getMultisigSize())

  t.same(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, good), { m: 2, n: 3, signers: members }, '2-of-3: m, n and the n signers')
  t.same(decodeOwnerMultisig(TOKEN_2022_PROGRAM_ADDRESS, good), { m: 2, n: 3, signers: members }, 'Token-2022 has the same layout')
  t.equal(decodeOwnerMultisig('11111111111111111111111111111111', good), undefined, 'owned by another program: not a multisig')
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, good.subarray(0, 165)), undefined, 'another size (a token account): not a multisig')
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, encode(2, 3, false, members)), undefined, 'not initialized')
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, encode(4, 3, true, members)), undefined, 'm above n')
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, encode(0, 3, true, members)), undefined, 'm of 0')
  const tooMany = encode(1, 3, true, members)
  tooMany[1] = 12
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, tooMany), undefined, 'n above 11')
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, encode(1, 3, true, members.slice(0, 2))), undefined, 'a member that is the default key')
  const flag = encode(2, 3, true, members)
  flag[2] = 7
  t.equal(decodeOwnerMultisig(TOKEN_PROGRAM_ADDRESS, flag), undefined, 'an initialized flag that is not a boolean')
})
