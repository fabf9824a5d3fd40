// @solana/kit's own RPC client and program clients, unchanged, against the local chain.
import t from 'tap'
import {
  address,
  airdropFactory,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  createTransactionMessage,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  appendTransactionMessageInstructions,
  signTransactionMessageWithSigners,
  getSignatureFromTransaction,
} from '@solana/kit'
import { fetchMint as fetchTokenMint, fetchToken } from '@solana-program/token'
import { fetchMint as fetchToken2022Mint, getTransferCheckedWithFeeInstruction, findAssociatedTokenPda, TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import { getTransferSolInstruction } from '@solana-program/system'
import { startLocalnet } from '../index.js'

t.test('createSolanaRpc works unchanged', async (t) => {
  const net = await startLocalnet()
  t.teardown(() => net.stop())
  const rpc = createSolanaRpc(net.url)

  t.test('reads come back typed (u64 as bigint)', async (t) => {
    t.equal(await rpc.getHealth().send(), 'ok')
    const { value } = await rpc.getLatestBlockhash().send()
    t.type(value.lastValidBlockHeight, 'bigint')
    t.type(await rpc.getSlot().send(), 'bigint')
    const rent = await rpc.getMinimumBalanceForRentExemption(82n).send()
    t.equal(rent, 1461600n)
  })

  t.test("kit's airdrop helper and a signed transfer built the kit way", async (t) => {
    const alice = await generateKeyPairSigner()
    const bob = await generateKeyPairSigner()
    // airdropFactory confirms through subscriptions; we confirm by status instead (no websocket here).
    const signature = await rpc.requestAirdrop(alice.address, lamports(3_000_000_000n)).send()
    const { value: statuses } = await rpc.getSignatureStatuses([signature]).send()
    t.equal(statuses[0]?.confirmationStatus, 'finalized')
    t.type(airdropFactory, 'function')

    const { value: blockhash } = await rpc.getLatestBlockhash().send()
    const tx = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(alice, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(blockhash, m),
      (m) => appendTransactionMessageInstructions([getTransferSolInstruction({ source: alice, destination: bob.address, amount: lamports(1_000_000_000n) })], m),
      (m) => signTransactionMessageWithSigners(m)
    )
    const sent = await rpc.sendTransaction(getBase64EncodedWireTransaction(tx), { encoding: 'base64' }).send()
    t.equal(sent, getSignatureFromTransaction(tx))
    t.equal((await rpc.getBalance(bob.address).send()).value, 1_000_000_000n)
    const fetched = await rpc.getTransaction(sent, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send()
    t.equal(fetched?.meta?.fee, 5000n)
    t.equal(fetched?.version, 0)
    const parsed = await rpc.getTransaction(sent, { maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' }).send()
    t.equal(parsed?.transaction.message.accountKeys[0].pubkey, alice.address)
    const history = await rpc.getSignaturesForAddress(bob.address).send()
    t.equal(history[0].signature, sent)
    t.type(history[0].blockTime, 'bigint')
  })

  t.test('program-client account fetchers decode our accounts', async (t) => {
    const usdc = await net.createMint({ address: address('4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU'), decimals: 6 })
    const owner = await net.createWallet()
    const ata = await net.mintTo(usdc, owner.address, 42_000_000n)
    const mint = await fetchTokenMint(rpc, usdc)
    t.equal(mint.data.decimals, 6)
    t.equal(mint.data.supply, 42_000_000n)
    const token = await fetchToken(rpc, ata)
    t.equal(token.data.amount, 42_000_000n)
    t.equal(token.data.owner, owner.address)
    const { value: accounts } = await rpc.getTokenAccountsByOwner(owner.address, { mint: usdc }, { encoding: 'jsonParsed' }).send()
    t.equal(accounts.length, 1)
    t.equal(accounts[0].pubkey, ata)
    t.equal(accounts[0].account.data.parsed.info.tokenAmount.uiAmountString, '42')
    const { value: multiple } = await rpc.getMultipleAccounts([usdc, ata, (await generateKeyPairSigner()).address], { encoding: 'base64' }).send()
    t.equal(multiple.length, 3)
    t.equal(multiple[2], null)
    t.equal(multiple[0]?.owner, 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA')
  })

  t.test('Token-2022 transfer fee: net amount arrives, fee is withheld', async (t) => {
    const sender = await net.createWallet()
    const receiver = await net.createWallet()
    const mint = await net.createMint({ decimals: 6, program: 'token-2022', extensions: { transferFee: { basisPoints: 100, maximumFee: 1_000_000n } } })
    const source = await net.mintTo(mint, sender.address, 10_000_000n)
    const destination = await net.createAta(mint, receiver.address)
    const [expected] = await findAssociatedTokenPda({ mint, owner: receiver.address, tokenProgram: TOKEN_2022_PROGRAM_ADDRESS })
    t.equal(destination, expected)
    const signature = await net.sendInstructions(
      [getTransferCheckedWithFeeInstruction({ source, mint, destination, authority: sender, amount: 5_000_000n, decimals: 6, fee: 50_000n })],
      [sender]
    )
    const tx = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: 'json' }).send()
    const index = tx!.transaction.message.accountKeys.indexOf(destination)
    const post = tx!.meta!.postTokenBalances!.find((b) => b.accountIndex === index)
    t.equal(post?.uiTokenAmount.amount, '4950000', 'recipient gets amount minus fee')
    t.equal(post?.programId, TOKEN_2022_PROGRAM_ADDRESS)
    const parsed = await rpc.getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: 'jsonParsed' }).send()
    const ix = parsed!.transaction.message.instructions[0] as any
    t.equal(ix.parsed.type, 'transferCheckedWithFee')
    t.equal(ix.parsed.info.feeAmount.amount, '50000')
    const fetched = await fetchToken2022Mint(rpc, mint)
    t.equal(fetched.data.decimals, 6)
    const { value } = await rpc.getAccountInfo(destination, { encoding: 'jsonParsed' }).send()
    const extensions = (value!.data as any).parsed.info.extensions
    t.same(extensions.find((e: any) => e.extension === 'transferFeeAmount'), { extension: 'transferFeeAmount', state: { withheldAmount: 50000n } })
    t.same(extensions.find((e: any) => e.extension === 'immutableOwner'), { extension: 'immutableOwner' })
  })
})
