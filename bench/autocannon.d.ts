// The slice of autocannon 8's API the bench uses (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string
    connections?: number
    duration?: number
    pipelining?: number
    amount?: number
    headers?: Record<string, string>
    method?: string
  }
  interface Histogram {
    average: number
    mean: number
    p50: number
    p99: number
    max: number
    total: number
  }
  interface Result {
    duration: number
    errors: number
    timeouts: number
    non2xx: number
    statusCodeStats: Record<string, { count: number }>
    latency: Histogram
    requests: Histogram
  }
  function autocannon (options: Options): Promise<Result>
  export default autocannon
}
