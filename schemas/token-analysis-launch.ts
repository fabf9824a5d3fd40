import { Type, type Static } from '@sinclair/typebox'
import { SolanaAddress } from './common.js'

// The launch, holder clusters and creator parts of the analysis (lib/token-analysis/launch/).
const Address = (description: string) => Type.String({ pattern: SolanaAddress.pattern, description })
const Amount = (description: string) => Type.String({ pattern: '^[0-9]+$', description: `${description}, in base units` })
const Signature = (description: string) => Type.String({ minLength: 64, maxLength: 88, description: `${description} (transaction signature, base58)` })
const Share = (description: string) => Type.Number({ minimum: 0, maximum: 1, description: `${description}, as a fraction of the current supply, exact and rounded to 6 decimals` })
const Reason = Type.Optional(Type.String({ description: 'why the part is unavailable (present only when available is false)' }))

export const EarlyBuyer = Type.Object({
  owner: Address('wallet that received the token in the launch window'),
  token_account: Address('its token account'),
  received: Amount('tokens it received in the launch window'),
  slot: Type.Integer({ description: 'slot of its first receipt' }),
  signature: Signature('transaction of its first receipt'),
  holds_now: Amount('balance of that token account now'),
  share_now: Share('that balance')
}, { additionalProperties: false })

export const Launch = Type.Object({
  available: Type.Boolean({ description: 'false when the creation could not be read (history too long, RPC refused, out of time)' }),
  reason: Reason,
  creation_signature: Type.Optional(Signature('the transaction that initialised the mint')),
  slot: Type.Optional(Type.Integer({ description: 'slot of the creation' })),
  created_at: Type.Optional(Type.Union([Type.Integer({ description: 'unix seconds of the creation block' }), Type.Null()])),
  creator: Type.Optional(Address('fee payer of the creation transaction')),
  initial_mint_authority: Type.Optional(Address('mint authority set at creation, when it is not the creator')),
  early_buyers: Type.Optional(Type.Array(EarlyBuyer, { maxItems: 50, description: 'wallets that received the token in the creation slot and the 20 after it (creator, its mint authority and program-owned accounts such as pools and bonding curves excluded), first receipt first' })),
  early_buyers_share_now: Type.Optional(Share('combined balance of the early buyers\' token accounts now')),
  bundled_in_creation: Type.Optional(Amount('tokens delivered to others than the creator inside the creation transaction itself'))
}, { additionalProperties: false, description: 'Who created the token, when, and who received it first, with the signatures to check on chain.' })

export const HolderCluster = Type.Object({
  funder: Address('wallet that sent the first SOL each member received'),
  members: Type.Array(Address('owner of one of the largest accounts'), { minItems: 2, description: 'owners funded by it (wallets only)' }),
  share: Share('combined balance of the members\' accounts among the largest'),
  evidence: Type.Array(Signature('the funding transaction of each member, in the order of members'), { description: 'funding signatures' }),
  funded_by_creator: Type.Boolean({ description: 'the funder is the creator of the mint (`launch.creator`)' })
}, { additionalProperties: false })

export const HolderClusters = Type.Array(HolderCluster, { maxItems: 10, description: 'owners of the ten largest accounts grouped by who first funded them with SOL, largest share first; single wallets are not listed' })

export const Creator = Type.Object({
  available: Type.Boolean({ description: 'false when the creator is unknown (the launch is unavailable) or its history could not be read' }),
  reason: Reason,
  address: Type.Optional(Address('the creator (`launch.creator`)')),
  mints_created: Type.Optional(Type.Integer({ minimum: 0, description: 'other mints whose creation the creator paid for, among the transactions read' })),
  scanned_signatures: Type.Optional(Type.Integer({ minimum: 0, description: 'how many of the creator\'s newest transactions were read' })),
  complete: Type.Optional(Type.Boolean({ description: 'those are all the creator\'s transactions: mints_created is exact' })),
  others: Type.Optional(Type.Array(Type.Object({
    mint: Address('another mint the creator created'),
    signature: Signature('its creation')
  }, { additionalProperties: false }), { maxItems: 20, description: 'up to 20 of those mints, newest first' }))
}, { additionalProperties: false, description: 'What else the creator launched, with the creation signatures.' })

export type CreatorBody = Static<typeof Creator>
export type HolderClusterBody = Static<typeof HolderCluster>
export type LaunchBody = Static<typeof Launch>
export type EarlyBuyerBody = Static<typeof EarlyBuyer>
