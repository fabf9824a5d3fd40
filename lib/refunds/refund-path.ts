/** Where refund requests are POSTed (advertised in the 402's extensions.refund.refundEndpoint). */
export const REFUND_PATH = '/api/refunds'
