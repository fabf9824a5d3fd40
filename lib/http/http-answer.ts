/** An HTTP answer as a door sends it: the status, its headers and the text of the body. */
export interface HttpAnswer {
  statusCode: number
  headers: Record<string, string>
  body: string
}
