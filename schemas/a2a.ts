// Where the A2A door is found is part of the wire contract: the door serves there, the documents
// (lib/manifest) point there.

/** Path of the A2A endpoint (JSON-RPC). */
export const A2A_PATH = '/a2a'

/** Path of the agent card (A2A's AGENT_CARD_PATH). */
export const AGENT_CARD_PATH = '/.well-known/agent-card.json'
