export { PAYMENT_HEADERS } from '../../schemas/payment-headers.js'
