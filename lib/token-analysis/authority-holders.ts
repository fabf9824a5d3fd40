import { Type, type Static } from '@sinclair/typebox'
import { TypeCompiler } from '@sinclair/typebox/compiler'
import {
  getAddressEncoder,
  getProgramDerivedAddress,
  getUtf8Encoder,
  isOffCurveAddress,
  type Address,
  type GetMultipleAccountsApi,
  type Rpc,
  type Slot
} from '@solana/kit'
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token'
import { TOKEN_2022_PROGRAM_ADDRESS } from '@solana-program/token-2022'
import type { AuthorityPowerBody, TokenExtensionBody, TokenMetadataBody } from '../../schemas/token-analysis.js'
import { decodeSquadsMultisig, SQUADS_V3_PROGRAM, SQUADS_V4_PROGRAM } from './authority-accounts.js'
import { decodeTokenMultisig } from '../solana/token-multisig.js'
import { refusalReason } from './holders.js'
import { METAPLEX_METADATA_PROGRAM } from './metaplex-metadata.js'

export type AuthorityPower = AuthorityPowerBody['power']
export type AuthorityKind = AuthorityPowerBody['kind']

const SYSTEM_PROGRAM = '11111111111111111111111111111111'
const SPL_STAKE_POOL_PROGRAM = 'SPoo1Ku8WFXoNDMHPsrGSTSG1Y47rzgn41SLUNakuHy' as Address

/** Programs named when they own an authority's account. */
const PROGRAM_NAMES: Record<string, string> = {
  [SYSTEM_PROGRAM]: 'System Program',
  [TOKEN_PROGRAM_ADDRESS]: 'SPL Token',
  [TOKEN_2022_PROGRAM_ADDRESS]: 'Token-2022',
  [SQUADS_V4_PROGRAM]: 'Squads v4',
  [SQUADS_V3_PROGRAM]: 'Squads v3',
  [SPL_STAKE_POOL_PROGRAM]: 'SPL stake-pool',
  [METAPLEX_METADATA_PROGRAM]: 'Metaplex Token Metadata',
  BPFLoaderUpgradeab1e11111111111111111111111: 'BPF upgradeable loader',
  BPFLoader2111111111111111111111111111111111: 'BPF loader'
}

/**
 * Program-derived addresses the analysis can name: an address off the curve owns no account of its
 * own (the System Program owns it, or nothing does), so only a table of known derivations says which
 * program signs for it. Each is derived at start from its program and seeds, never typed in.
 * Stake pools: the withdraw authority [pool, "withdraw"] is the mint authority of the pool token
 * and mints only against deposited stake (spl stake-pool, program/src/lib.rs AUTHORITY_WITHDRAW).
 */
const KNOWN_STAKE_POOLS = [
  // Jito's pool (JitoSOL): jito.network docs, "JitoSOL stake pool address".
  { pool: 'Jito4APyf642JPZPx3hGc6WWJ8zPKtRbRs4P815Awbb' as Address, name: 'SPL stake-pool (JitoSOL pool Jito4APyf642JPZPx3hGc6WWJ8zPKtRbRs4P815Awbb), minting only against deposited SOL' }
]

interface KnownDerivation { program: Address, name: string }

const knownDerivations: Promise<Map<string, KnownDerivation>> = Promise.all(KNOWN_STAKE_POOLS.map(async ({ pool, name }) => {
  const [withdrawAuthority] = await getProgramDerivedAddress({
    programAddress: SPL_STAKE_POOL_PROGRAM,
    seeds: [getAddressEncoder().encode(pool), getUtf8Encoder().encode('withdraw')]
  })
  return [withdrawAuthority, { program: SPL_STAKE_POOL_PROGRAM, name }] as const
})).then(entries => new Map(entries))

const RULES_BOUND = new Set(KNOWN_STAKE_POOLS.map(pool => pool.name))

/** True for a program named by a known derivation whose rules bound the power (a stake pool mints only against deposits). */
export function isRulesBound (programName: string): boolean {
  return RULES_BOUND.has(programName)
}

/** The stake-pool withdraw authority of a pool, as the table derives it (for tests and the docs). */
export async function knownDerivation (address: Address): Promise<KnownDerivation | undefined> {
  return (await knownDerivations).get(address)
}

/** Every power the analysis reports, with the address holding it. */
export function listPowers (mint: { mintAuthority: Address | null, freezeAuthority: Address | null }, extensions: TokenExtensionBody[], metadata: TokenMetadataBody | null): Array<{ power: AuthorityPower, address: Address }> {
  const powers: Array<{ power: AuthorityPower, address: string | null }> = [
    { power: 'mint', address: mint.mintAuthority },
    { power: 'freeze', address: mint.freezeAuthority }
  ]
  for (const extension of extensions) {
    switch (extension.type) {
      case 'permanent_delegate': powers.push({ power: 'permanent_delegate', address: extension.delegate }); break
      case 'transfer_fee':
        powers.push({ power: 'transfer_fee_config', address: extension.config_authority }, { power: 'transfer_fee_withdraw', address: extension.withdraw_withheld_authority })
        break
      case 'transfer_hook': powers.push({ power: 'transfer_hook', address: extension.authority }); break
      case 'pausable': powers.push({ power: 'pause', address: extension.authority }); break
      case 'mint_close_authority': powers.push({ power: 'close', address: extension.close_authority }); break
      case 'confidential_transfer': powers.push({ power: 'confidential_transfer', address: extension.authority }); break
      case 'scaled_ui_amount': powers.push({ power: 'scaled_ui_amount', address: extension.authority }); break
      case 'interest_bearing': powers.push({ power: 'interest_rate', address: extension.rate_authority }); break
      case 'metadata_pointer': powers.push({ power: 'metadata_pointer', address: extension.authority }); break
      case 'permissioned_burn': powers.push({ power: 'permissioned_burn', address: extension.authority }); break
      default: break
    }
  }
  if (metadata !== null) powers.push({ power: 'metadata_update', address: metadata.update_authority })
  // The schema's addresses are base58 strings checked by the decoders; here they are addresses again.
  return powers.filter((entry): entry is { power: AuthorityPower, address: Address } => entry.address !== null)
}

/** What one address is, from its account (null: no account) and the curve. */
export type Holder = Omit<AuthorityPowerBody, 'power' | 'address'>

/** The part of a getMultipleAccounts (base64) answer the classification reads, checked before use. */
const AccountsAnswer = Type.Object({
  context: Type.Object({ slot: Type.Union([Type.Integer({ minimum: 0 }), Type.BigInt()]) }),
  value: Type.Array(Type.Union([Type.Null(), Type.Object({
    owner: Type.String(),
    executable: Type.Boolean(),
    data: Type.Tuple([Type.String(), Type.Literal('base64')])
  })]))
})
const accountsAnswer = TypeCompiler.Compile(AccountsAnswer)
type AccountRead = Static<typeof AccountsAnswer>['value'][number]

function programName (owner: string): string | undefined {
  return Object.hasOwn(PROGRAM_NAMES, owner) ? PROGRAM_NAMES[owner] : undefined
}

function multisigHolder (kind: 'token_multisig' | 'squads_multisig', owner: Address, threshold: number, signers: Address[]): Holder {
  const program = programName(owner) ?? owner
  return {
    kind,
    account_owner: owner,
    program_name: program,
    threshold,
    signers,
    evidence: `A multisig account of ${program}: ${threshold} of its ${signers.length} signers must sign (${signers.join(', ')}).`
  }
}

/** Classifies one address from its account as read (null: no account exists there). */
export async function classify (address: Address, account: AccountRead): Promise<Holder> {
  const offCurve = isOffCurveAddress(address)
  if (account !== null) {
    const owner = account.owner as Address
    if (account.executable) {
      return { kind: 'executable', account_owner: owner, program_name: programName(owner) ?? owner, evidence: `An executable program account (loaded by ${programName(owner) ?? owner}); the power is held by a program address, whose deployer may still hold its key.` }
    }
    const data = new Uint8Array(Buffer.from(account.data[0], 'base64'))
    const tokenMultisig = decodeTokenMultisig(owner, data)
    if (tokenMultisig !== null) return multisigHolder('token_multisig', owner, tokenMultisig.threshold, tokenMultisig.signers)
    if (owner === SQUADS_V4_PROGRAM || owner === SQUADS_V3_PROGRAM) {
      const squads = decodeSquadsMultisig(owner, data)
      if (squads !== null) return multisigHolder('squads_multisig', owner, squads.threshold, squads.signers)
      return { kind: 'squads_multisig', account_owner: owner, program_name: programName(owner), evidence: `An account of the ${programName(owner) ?? owner} program that is not its multisig account; threshold and members are not read from it.` }
    }
    if (!offCurve) {
      return { kind: 'wallet', account_owner: owner, evidence: `On the ed25519 curve: one private key signs for it (its account is owned by ${programName(owner) ?? owner}).` }
    }
  }
  if (!offCurve) return { kind: 'wallet', account_owner: null, evidence: 'On the ed25519 curve: one private key signs for it (no account exists there).' }
  const known = await knownDerivation(address)
  if (known !== undefined) {
    return { kind: 'program', account_owner: account === null ? null : account.owner as Address, program_name: known.name, evidence: `Off the ed25519 curve: a program-derived address of ${known.program}; only that program signs for it: ${known.name}.` }
  }
  const owner = account === null ? null : account.owner as Address
  if (owner !== null && owner !== SYSTEM_PROGRAM) {
    return { kind: 'program', account_owner: owner, program_name: programName(owner) ?? owner, evidence: `Off the ed25519 curve: no private key exists; its account is owned by ${programName(owner) ?? owner}, which can sign for it.` }
  }
  return { kind: 'program', account_owner: owner, evidence: `Off the ed25519 curve: no private key exists, only the program that derived the address can sign; ${owner === null ? 'no account' : 'a System Program account'} there names which program.` }
}

export type AuthorityHoldersRead = { state: 'read', slot: number, holders: Map<Address, Holder> } | { state: 'unavailable', reason: string } | { state: 'none' }

const UNKNOWN = (reason: string): Holder => ({ kind: 'unknown', account_owner: null, evidence: reason })

/**
 * Reads every authority's account in one getMultipleAccounts (base64, no older than the mint's slot)
 * and classifies each, given up at `signal` (the analysis's time budget). Never throws: an RPC that fails or answers out of shape makes every holder
 * `unknown`, with the reason.
 */
export async function readAuthorityHolders (rpc: Rpc<GetMultipleAccountsApi>, addresses: Address[], minContextSlot: Slot, signal?: AbortSignal): Promise<AuthorityHoldersRead> {
  const unique = [...new Set(addresses)]
  if (unique.length === 0) return { state: 'none' }
  let answer: unknown
  try {
    answer = await rpc.getMultipleAccounts(unique, { encoding: 'base64', commitment: 'confirmed', minContextSlot }).send({ abortSignal: signal })
  } catch (error) {
    if (signal?.aborted === true) return { state: 'unavailable', reason: 'The authorities\' accounts were not read within the analysis\'s time budget.' }
    return { state: 'unavailable', reason: `The authorities' accounts could not be read: ${refusalReason(error)}.` }
  }
  if (!accountsAnswer.Check(answer) || answer.value.length !== unique.length) {
    return { state: 'unavailable', reason: 'The authorities\' accounts could not be read: the RPC node answered getMultipleAccounts out of shape.' }
  }
  const { value, context } = answer
  const holders = new Map<Address, Holder>()
  for (const [i, address] of unique.entries()) holders.set(address, await classify(address, value[i]))
  return { state: 'read', slot: Number(context.slot), holders }
}

/** Each power with its holder; unknown (with the reason) when the accounts could not be read. */
export function describePowers (powers: Array<{ power: AuthorityPower, address: Address }>, read: AuthorityHoldersRead): AuthorityPowerBody[] {
  return powers.map(({ power, address }) => {
    const holder = read.state === 'read' ? read.holders.get(address) : undefined
    return { power, address, ...(holder ?? UNKNOWN(read.state === 'unavailable' ? read.reason : 'Not read.')) }
  })
}
