import sensible from '@fastify/sensible'
export default sensible
